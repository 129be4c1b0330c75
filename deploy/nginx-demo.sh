#!/usr/bin/env bash
# Run the production layout on loopback: N app instances (uvicorn, one process each) behind nginx
# with a fragment cache; show cache hits and the throughput gained over one instance direct.
# Usage: deploy/nginx-demo.sh [instances=2] [seconds=5]. Needs Debian's nginx and wrk. The instances
# share one live class through a redis-server started here with deploy/redis.conf (AOF, everysec),
# as a deployment runs it (docs/live-class.md); without redis-server each instance keeps its own.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2}; SECS=${2:-5}
PY=${PY:-.venv/bin/python}
command -v nginx >/dev/null || { echo "nginx not installed: apt-get install nginx"; exit 1; }
command -v wrk >/dev/null || { echo "wrk not installed: apt-get install wrk"; exit 1; }
PREFIX=$(mktemp -d)
chmod 755 "$PREFIX"; mkdir -p "$PREFIX/cache" && chmod 777 "$PREFIX/cache"   # nginx workers run unprivileged
BASE=18600
pids=()
cleanup() { nginx -p "$PREFIX" -c "$PREFIX/nginx.conf" -s stop 2>/dev/null || true; kill "${pids[@]}" 2>/dev/null || true; rm -rf "$PREFIX"; }
trap cleanup EXIT
if command -v redis-server >/dev/null; then
  RPORT=$((BASE + 99)); mkdir -p "$PREFIX/redis"
  redis-server deploy/redis.conf --port "$RPORT" --dir "$PREFIX/redis" --daemonize no >"$PREFIX/redis.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  export AIINFRA_REDIS_URL="redis://127.0.0.1:$RPORT/0"
fi
for i in $(seq 1 "$N"); do
  port=$((BASE + i))
  $PY -m uvicorn --factory app.main:create_app --host 127.0.0.1 --port "$port" --log-level warning --no-access-log &
  pids+=($!)
  echo "        server 127.0.0.1:$port;" >> "$PREFIX/upstreams"
done
sed -e "s#@PREFIX@#$PREFIX#g" -e "s#@LISTEN@#127.0.0.1:$BASE#g" \
    -e "/@UPSTREAMS@/{r $PREFIX/upstreams" -e "d}" deploy/nginx.conf.template > "$PREFIX/nginx.conf"
for i in $(seq 1 "$N"); do
  for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$((BASE + i))/healthz" >/dev/null && break; sleep 0.1; done
done
nginx -p "$PREFIX" -c "$PREFIX/nginx.conf"
sleep 0.5
URL=http://127.0.0.1:$BASE
curl -sf "$URL/cards/eg-1-1/fragment?batch=16" >/dev/null || { echo "nginx did not serve:"; tail -5 "$PREFIX/error.log"; exit 1; }
echo "cache status of the same fragment requested three times through nginx:"
for k in 1 2 3; do
  printf '  %s\n' "$(curl -s -o /dev/null -D - "$URL/cards/eg-1-1/fragment?batch=16" | grep -i x-cache-status | tr -d '\r')"
done
cat > "$PREFIX/mix.lua" <<'LUA'
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/cards/eg-1-1/fragment?batch=" .. (1 + counter % 512))
end
LUA
# warm the cache once over the 512 states, then measure
wrk -t2 -c8 -d2s -s "$PREFIX/mix.lua" "$URL" >/dev/null
echo
echo "one instance direct (${SECS}s, 32 clients):"
wrk -t2 -c32 -d"${SECS}s" -s "$PREFIX/mix.lua" "http://127.0.0.1:$((BASE + 1))" | grep -E "Requests/sec|Latency|Non-2xx" | sed 's/^/  /'
echo "nginx + cache in front of $N instances (${SECS}s, 32 clients):"
wrk -t2 -c32 -d"${SECS}s" -s "$PREFIX/mix.lua" "$URL" | grep -E "Requests/sec|Latency|Non-2xx" | sed 's/^/  /'
