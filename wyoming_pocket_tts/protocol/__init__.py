"""The Wyoming side: bounded event reading, the connection's read loop and its reply writer."""
