// Voice studio: plain JavaScript, no build step. Every URL is relative (ingress serves the page
// under a path prefix). Speech plays from v1/audio/speech as raw 24 kHz PCM while it is made.
"use strict";

const RATE = 24000;
const CSRF = document.querySelector('meta[name="studio-csrf"]').content;
const SAMPLES = {
  en: "Hello! This is how I sound.", fr: "Bonjour ! Voici ma voix.", de: "Hallo! So klinge ich.",
  es: "¡Hola! Así suena mi voz.", it: "Ciao! Questa è la mia voce.", pt: "Olá! Esta é a minha voz.",
  nl: "Hallo! Zo klink ik.",
};
// Home Assistant reads the voice list when the Wyoming entry is set up; the add-on cannot find
// its own entry to reload it (the Core API lists entries without their address or unique id).
const RELOAD_HINT = "To see the change in Home Assistant's voice pickers, reload the integration: Settings -> Devices & services -> Wyoming Protocol -> Pocket-TTS -> ⋮ -> Reload.";
const studio = (window.studio = { lastPlayback: null, sample: null, voices: null });
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function say(text, error = false) {
  const box = $("message");
  box.textContent = text;
  box.className = error ? "error" : "";
  box.hidden = !text;
}

async function api(path, { method = "GET", json, body, query } = {}) {
  const headers = {};
  if (method !== "GET") headers["X-Studio-CSRF"] = CSRF;
  if (json !== undefined) { headers["Content-Type"] = "application/json"; body = JSON.stringify(json); }
  const url = "studio/api/" + path + (query ? "?" + new URLSearchParams(query) : "");
  const response = await fetch(url, { method, headers, body });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((data.error && data.error.message) || response.statusText);
  return data;
}

function audioContext() {
  if (!studio.context) studio.context = new AudioContext({ sampleRate: RATE });
  if (studio.context.state === "suspended") studio.context.resume();
  return studio.context;
}

// Speech, streamed: each piece of PCM is scheduled as soon as it arrives.
async function speak(voice, language, text) {
  const context = audioContext();
  const playback = (studio.lastPlayback = { voice, bytes: 0, firstAudioMs: null, done: false, error: null });
  const started = performance.now();
  try {
    const response = await fetch("v1/audio/speech", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Studio-CSRF": CSRF },
      body: JSON.stringify({ model: language, input: text, voice, response_format: "pcm" }),
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      throw new Error((data.error && data.error.message) || `speech: ${response.status}`);
    }
    const reader = response.body.getReader();
    let at = context.currentTime + 0.1;
    let odd = null;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let bytes = value;
      if (odd !== null) { bytes = new Uint8Array(value.length + 1); bytes[0] = odd; bytes.set(value, 1); odd = null; }
      if (bytes.length % 2) { odd = bytes[bytes.length - 1]; bytes = bytes.subarray(0, bytes.length - 1); }
      if (!bytes.length) continue;
      if (playback.firstAudioMs === null) playback.firstAudioMs = performance.now() - started;
      playback.bytes += bytes.length;
      const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      const buffer = context.createBuffer(1, pcm.length, RATE);
      const channel = buffer.getChannelData(0);
      for (let i = 0; i < pcm.length; i++) channel[i] = pcm[i] / 32768;
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      at = Math.max(at, context.currentTime);
      source.start(at);
      at += buffer.duration;
    }
  } catch (error) {
    playback.error = String(error.message || error);
    say("Cannot play: " + playback.error, true);
  } finally {
    playback.done = true;
  }
  return playback;
}

// Voices.
async function loadVoices() {
  const data = await api("voices");
  studio.voices = data;
  const list = $("voice-list");
  list.replaceChildren();
  const choices = [];
  for (const language of data.languages) {
    const box = el("div", { class: "lang", "data-language": language.code }, el("h2", {}, `Language: ${language.code}`));
    for (const voice of language.voices) {
      choices.push(voice);
      const actions = el("span", { class: "actions" },
        el("button", { class: "play", onclick: () => speak(voice.name, voice.language, SAMPLES[voice.language.slice(0, 2)] || SAMPLES.en) }, "▶ Play"));
      if (!voice.default && voice.ready)
        actions.append(el("button", { class: "set-default", onclick: () => setDefault(voice) }, "Make default"));
      if (voice.editable) {
        actions.append(el("button", { class: "rename", onclick: () => rename(voice) }, "Rename"));
        actions.append(el("button", { class: "delete", onclick: () => remove(voice) }, "Delete"));
      }
      const card = el("div", { class: "voice", "data-voice": voice.name },
        el("span", { class: "name" }, voice.name),
        el("span", { class: "badge origin" }, voice.origin),
        voice.default ? el("span", { class: "badge default" }, "default") : "",
        el("span", { class: "badge " + (voice.ready ? "ready" : "broken") }, voice.ready ? "ready" : "not ready"),
        actions);
      if (!voice.ready) {
        const why = el("div", { class: "why" }, `${voice.reason}. ${voice.remedy || ""} `);
        if (voice.link) why.append(el("a", { href: voice.link, target: "_blank", rel: "noopener" }, voice.link));
        card.append(why);
      }
      box.append(card);
    }
    list.append(box);
  }
  const select = $("try-voice");
  const current = select.value;
  select.replaceChildren(...choices.map((v) => el("option", { value: v.name, "data-language": v.language }, `${v.name} (${v.language})`)));
  if (current) select.value = current;
  for (const id of ["add-language", "pron-language"]) {
    const languages = $(id);
    const chosen = languages.value;
    languages.replaceChildren(...data.languages.map((l) => el("option", { value: l.code }, l.code)));
    if (chosen) languages.value = chosen;
  }
  for (const id of ["voices-folder", "add-folder"]) {
    $(id).textContent = data.folder_problem || "";
    $(id).hidden = !data.folder_problem;
  }
  $("add-file").disabled = !data.can_add;
  $("add-record").disabled = !data.can_add || !canRecord();
}

// Browsers give the microphone only to a secure context (https, or localhost).
function canRecord() {
  return window.isSecureContext && !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
}

async function setDefault(voice) {
  await act(() => api("defaults", { method: "POST", json: { language: voice.language, name: voice.name } }), `${voice.name} is now the default voice of ${voice.language}`);
}

async function rename(voice) {
  const name = prompt(`New name for ${voice.name}`, voice.name);
  if (!name || name === voice.name) return;
  await act(() => api("voices/rename", { method: "POST", json: { name: voice.name, new_name: name } }), `Renamed ${voice.name} to ${name}. ${RELOAD_HINT}`);
}

async function remove(voice) {
  if (!confirm(`Delete the voice ${voice.name}? Its file is removed from the voices folder.`)) return;
  await act(() => api("voices/delete", { method: "POST", json: { name: voice.name } }), `Deleted ${voice.name}. ${RELOAD_HINT}`);
}

async function act(action, done) {
  try {
    await action();
    say(done);
  } catch (error) {
    say(error.message, true);
  }
  await loadVoices();
}

// Try it.
let prepareTimer = null;
function selectedVoice() {
  const option = $("try-voice").selectedOptions[0];
  return option ? { name: option.value, language: option.dataset.language } : null;
}
async function showPrepared() {
  const voice = selectedVoice();
  if (!voice) return;
  try {
    const data = await api("prepare", { method: "POST", json: { text: $("try-text").value, voice: voice.name } });
    $("try-prepared").textContent = data.prepared;
  } catch (error) {
    $("try-prepared").textContent = error.message;
  }
}

// Add a voice: any file or recording is decoded by the browser, made mono 24 kHz and sent as WAV.
function wav(samples, rate) {
  const view = new DataView(new ArrayBuffer(44 + samples.length * 2));
  const text = (offset, s) => [...s].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)));
  text(0, "RIFF"); view.setUint32(4, 36 + samples.length * 2, true); text(8, "WAVEfmt ");
  view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
  view.setUint32(24, rate, true); view.setUint32(28, rate * 2, true); view.setUint16(32, 2, true);
  view.setUint16(34, 16, true); text(36, "data"); view.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    view.setInt16(44 + i * 2, s < 0 ? s * 32768 : s * 32767, true);
  }
  return new Blob([view.buffer], { type: "audio/wav" });
}

async function toMono24k(buffer) {
  const frames = Math.ceil(buffer.duration * RATE);
  const offline = new OfflineAudioContext(1, Math.max(1, frames), RATE);
  const source = offline.createBufferSource();
  source.buffer = buffer;
  source.connect(offline.destination);
  source.start();
  return (await offline.startRendering()).getChannelData(0);
}

async function takeSample(blob) {
  say("Checking the sample…");
  let upload = blob;
  try {
    const decoded = await audioContext().decodeAudioData(await blob.arrayBuffer());
    upload = wav(await toMono24k(decoded), RATE);
  } catch (error) {
    upload = blob; // the server reads wav, mp3, flac and ogg itself, and says why if it cannot
  }
  try {
    const report = await api("check", { method: "POST", body: upload });
    studio.sample = { blob: upload, report };
    showReport(report);
    say(report.usable ? "Listen to it, trim it, name it and save it." : "This sample cannot be used: see the checks.", !report.usable);
  } catch (error) {
    studio.sample = null;
    $("add-sample").hidden = true;
    say(error.message, true);
  }
}

function showReport(report) {
  const rows = report.checks.map((c) => el("tr", { class: "check", "data-check": c.name },
    el("td", {}, c.name), el("td", {}, `${c.value} ${c.unit}`),
    el("td", { class: "verdict-" + c.verdict }, c.verdict), el("td", {}, c.advice)));
  $("add-checks").tBodies[0].replaceChildren(...rows);
  $("add-player").src = URL.createObjectURL(studio.sample.blob);
  $("add-start").value = report.trim_start;
  $("add-end").value = report.trim_end;
  $("add-start").max = $("add-end").max = report.seconds;
  $("add-sample").hidden = false;
}

async function saveSample() {
  const sample = studio.sample;
  if (!sample) return;
  const query = { name: $("add-name").value.trim(), language: $("add-language").value, start: $("add-start").value || 0, end: $("add-end").value || 0 };
  try {
    studio.savedAt = performance.now();
    $("add-save").disabled = true;
    say("Saving and preparing the voice: it is encoded once now, so that its first play is as quick as any other's…");
    const voice = await api("voices", { method: "POST", body: sample.blob, query });
    say(voice.ready ? `Saved ${voice.name}, ready to speak. ${RELOAD_HINT}` : `Saved ${voice.name}, but: ${voice.reason}. ${voice.remedy || ""}`, !voice.ready);
    await loadVoices();
    studio.lastSaved = voice;
  } catch (error) {
    say(error.message, true);
  } finally {
    $("add-save").disabled = false;
  }
}

function playTrimmed() {
  const player = $("add-player");
  player.currentTime = Number($("add-start").value || 0);
  const end = Number($("add-end").value || 0);
  const stop = () => { if (end && player.currentTime >= end) { player.pause(); player.removeEventListener("timeupdate", stop); } };
  player.addEventListener("timeupdate", stop);
  player.play();
}

async function startRecording() {
  // Raw samples through Web Audio (MediaRecorder would give webm/opus, which the server's
  // decoder does not read).
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
  const context = new AudioContext();
  const input = context.createMediaStreamSource(stream);
  const processor = context.createScriptProcessor(4096, 1, 1);
  const chunks = [];
  let captured = 0;
  processor.onaudioprocess = (event) => {
    chunks.push(new Float32Array(event.inputBuffer.getChannelData(0)));
    captured += event.inputBuffer.length;
  };
  input.connect(processor);
  processor.connect(context.destination);
  // The seconds captured, not the clock's: a busy device may capture less than the clock shows
  // (3.5 s in 5 s, once), and the trim must fit the sample the server gets.
  const timer = setInterval(() => { $("add-seconds").textContent = Math.floor(captured / context.sampleRate); }, 250);
  studio.recording = { stream, context, processor, chunks, timer };
  $("add-record").disabled = true; $("add-stop").disabled = false; $("add-recording").hidden = false;
}

async function stopRecording() {
  const recording = studio.recording;
  if (!recording) return;
  studio.recording = null;
  clearInterval(recording.timer);
  recording.processor.disconnect();
  recording.stream.getTracks().forEach((track) => track.stop());
  const length = recording.chunks.reduce((sum, c) => sum + c.length, 0);
  const buffer = recording.context.createBuffer(1, Math.max(1, length), recording.context.sampleRate);
  let offset = 0;
  for (const chunk of recording.chunks) { buffer.getChannelData(0).set(chunk, offset); offset += chunk.length; }
  await recording.context.close();
  $("add-record").disabled = false; $("add-stop").disabled = true; $("add-recording").hidden = true;
  await takeSample(wav(await toMono24k(buffer), RATE));
}

// Pronunciations.
let entries = [];
async function loadPronunciations() {
  const data = await api("pronunciations", { query: { language: $("pron-language").value } });
  entries = data.entries;
  renderPronunciations();
}
function renderPronunciations() {
  const rows = entries.map(([written, said], index) => {
    const result = el("div", { class: "tested" });
    return el("tr", { class: "entry" }, el("td", {}, written), el("td", {}, said, result),
      el("td", {}, el("button", { class: "test", onclick: () => testEntry(written, result) }, "Test"),
        " ", el("button", { class: "remove", onclick: () => savePronunciations(entries.filter((_, i) => i !== index)) }, "Remove")));
  });
  $("pron-table").tBodies[0].replaceChildren(...rows);
}
async function savePronunciations(next) {
  try {
    const data = await api("pronunciations", { method: "POST", json: { language: $("pron-language").value, entries: next } });
    entries = data.entries;
    renderPronunciations();
    say("Pronunciations saved.");
  } catch (error) {
    say(error.message, true);
  }
}
async function testEntry(written, result) {
  const language = $("pron-language").value;
  const voices = studio.voices.languages.find((l) => l.code === language);
  const text = `Say ${written}.`;
  const data = await api("prepare", { method: "POST", json: { text, voice: voices.default } });
  result.textContent = `As read: ${data.prepared}`;
  speak(voices.default, language, text);
}

// Status.
async function loadStatus() {
  const data = await api("status");
  const starting = data.state && data.state !== "ready" && !data.waiting;
  $("status-waiting").hidden = !data.waiting && !starting;
  $("status-waiting").textContent = data.waiting ? `Waiting for ${data.waiting}. Trying again regularly: speech starts once the download works.` : starting ? `Now: ${data.state_words}` : "";
  $("status-models").tBodies[0].replaceChildren(...data.models.map((m) => el("tr", {},
    el("td", {}, m.code), el("td", {}, m.model),
    el("td", { title: m.decision || "" }, m.failure ? "failed: " + m.failure : m.loaded ? "loaded" + (m.runtime === "onnx" ? " on ONNX Runtime" : "") + (m.quantized ? " (int8)" : "") + (m.int8_refused ? " (fp32: " + m.int8_refused + ")" : "") + (m.without_torch === "now" ? ", without torch" : "") + (m.preparing_graphs ? "; preparing ONNX Runtime graphs in the background" : "") + (m.without_torch === "next start" ? "; without torch from the next start" : "") + (m.provisional ? "; speed choice provisional, measured again when idle" : "") : "loads on first use"),
    el("td", {}, m.first_audio_ms !== undefined ? `${m.first_audio_ms} ms` : ""),
    el("td", {}, m.rtf != null ? `${m.rtf}× real time` : ""),
    el("td", { class: m.verdict && m.verdict.startsWith("slow") ? "verdict-warn" : "verdict-good" }, m.verdict || ""))));
  $("status-queue").textContent = `${data.queue.in_care} of ${data.queue.max} places in use`;
  $("status-recent").tBodies[0].replaceChildren(...data.recent.map((r) => el("tr", { class: "request" },
    el("td", {}, new Date(r.ended * 1000).toLocaleTimeString()), el("td", {}, r.voice),
    el("td", {}, String(r.chars)),
    el("td", {}, r.first_audio === null ? "–" : `${Math.round(r.first_audio * 1000)} ms`),
    el("td", {}, `${r.audio_seconds.toFixed(1)} s`), el("td", {}, r.errors.join(", ")))));
}

function showTab(name) {
  say("");
  for (const button of document.querySelectorAll("nav button")) button.classList.toggle("active", button.dataset.tab === name);
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== name;
  if (name === "status") loadStatus();
  if (name === "pronounce") loadPronunciations();
  if (name === "try") showPrepared();
}

document.addEventListener("DOMContentLoaded", async () => {
  for (const button of document.querySelectorAll("nav button")) button.addEventListener("click", () => showTab(button.dataset.tab));
  $("add-insecure").hidden = canRecord();
  $("try-text").addEventListener("input", () => { clearTimeout(prepareTimer); prepareTimer = setTimeout(showPrepared, 300); });
  $("try-voice").addEventListener("change", showPrepared);
  $("try-speak").addEventListener("click", () => { const v = selectedVoice(); showPrepared(); speak(v.name, v.language, $("try-text").value); });
  $("add-file").addEventListener("change", () => { const file = $("add-file").files[0]; if (file) takeSample(file); });
  $("add-record").addEventListener("click", () => startRecording().catch((error) => say("Cannot record: " + error.message, true)));
  $("add-stop").addEventListener("click", stopRecording);
  $("add-save").addEventListener("click", saveSample);
  $("add-play-trimmed").addEventListener("click", playTrimmed);
  $("pron-language").addEventListener("change", loadPronunciations);
  $("pron-add").addEventListener("click", () => {
    const written = $("pron-written").value.trim(), said = $("pron-said").value.trim();
    if (written && said) savePronunciations([...entries.filter(([w]) => w.toLowerCase() !== written.toLowerCase()), [written, said]]);
    $("pron-written").value = $("pron-said").value = "";
  });
  setInterval(() => { if (!$("status").hidden) loadStatus(); }, 5000);
  try {
    await loadVoices();
    document.body.dataset.ready = "1";
  } catch (error) {
    say(error.message, true);
  }
});
