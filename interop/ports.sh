# Loopback ports for the scripts that start servers: sourced, not run.
# The scripts' default ports lie in Linux's ephemeral range (32768-60999), so
# an outgoing connection of an earlier step can hold one as its local end: a
# connect probe finds nothing listening, and the server's bind then fails
# (CI failed so once). A port counts as free only when it can be bound.

port_free() { # PORT: status 0 when 127.0.0.1:PORT can be bound now
  python3 - "$1" <<'PY' 2>/dev/null
import socket, sys
s = socket.socket()
# As Rust's TcpListener does: TIME_WAIT leftovers do not block a bind.
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
PY
}

free_port() { # a port the kernel picks
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pick_port() { # PORT: PORT when it can be bound, else one the kernel picks
  if port_free "$1"; then echo "$1"; else free_port; fi
}

next_free_port() { # PORT: the first port from PORT up that can be bound
  local p="$1"
  until port_free "$p"; do p=$((p + 1)); done
  echo "$p"
}
