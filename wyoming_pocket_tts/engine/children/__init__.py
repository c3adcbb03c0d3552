"""Work that peaks far above serving, run in a child process so the serving process never holds
it: how every child runs, fails and waits its turn (`process.py`), the graphs' build seen from
the server (`graphs.py`; its program is `graph_build.child`), and a new voice's state encoded in
torch for the graphs alone (`voice.py`, the child's program and the server's side)."""
