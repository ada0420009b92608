#!/usr/bin/env bash
# No Docker engine runs on the build machines, so this replays the Dockerfile's steps by hand on
# the image's Node major (24, from the npm registry's `node` package) in a scratch folder: install,
# build, prune to production dependencies, then start the result and query it: in its sandbox, and
# in Redis mode as compose.yml runs it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill "${pid:-0}" "${redis_pid:-0}" "${slack_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
# The Node 24 binary itself (not npx around it), so the servers started below are the processes
# this script stops on exit.
node24_bin="$(npx -y -p node@24 -- node -e 'process.stdout.write(process.execPath)')"
node24() { "$node24_bin" "$@"; }
echo "node $(node24 --version) in $work"

# Build stage: COPY package*.json; npm ci; COPY tsconfig*.json src; npm run build; npm prune --omit=dev
cp "$repo/package.json" "$repo/package-lock.json" "$work/"
cd "$work"
npx -y -p node@24 -- npm ci --no-audit --no-fund
cp "$repo/tsconfig.json" "$repo/tsconfig.build.json" "$work/"
cp -r "$repo/src" "$work/src"
npx -y -p node@24 -- npm run build
npx -y -p node@24 -- npm prune --omit=dev --no-audit --no-fund

# Runtime stage: package.json, node_modules, dist only.
mkdir "$work/runtime"
cp -r "$work/package.json" "$work/node_modules" "$work/dist" "$work/runtime/"
cd "$work/runtime"
test ! -e node_modules/typescript && test ! -e node_modules/vitest
# No credentials: the bot in its local Slack sandbox on the simulator; run a command through the page's API.
PORT=0 STORE_URL="sqlite://$work/data/eventops.sqlite" "$node24_bin" dist/main.js > "$work/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q 'open http' "$work/out.log" 2>/dev/null && break; sleep 0.2; done
url=$(grep -o 'open http://127.0.0.1:[0-9]*/' "$work/out.log" | head -1 | cut -c6-)
page=$(curl -fsS "$url")
echo "$page" | grep -q 'eventops sandbox'
# The page drives the sandbox with the token written into it at start, from its own origin.
token=$(echo "$page" | grep -o 'name="sandbox-token" content="[^"]*"' | sed 's/.*content="//; s/"$//')
origin="${url%/}"
curl -fsS -X POST -H 'content-type: application/json' -H "x-sandbox-token: $token" -H "origin: $origin" \
  -d '{"user":"UEDITOR01","channel":"CGENERAL01","text":"/events list"}' "${url}ui/command" > /dev/null
sandbox_ok=""
for _ in $(seq 1 50); do
  curl -fsS -H "x-sandbox-token: $token" "${url}ui/state?user=UEDITOR01" | grep -q 'Upcoming events' && { sandbox_ok=1; break; }
  sleep 0.2
done
if [ -z "$sandbox_ok" ]; then
  echo "the sandbox never showed the list" >&2
  cat "$work/out.log" >&2
  exit 1
fi
echo "image steps ok: the pruned build on Node 24 answered /events list in its sandbox"
kill "$pid" && wait "$pid" 2>/dev/null || true

# Redis mode, as compose.yml runs it: the pruned build (BullMQ, ioredis, @keyv/redis) on a real
# redis-server, HTTP receiver with Slack credentials, the built-in simulator; /readyz must turn 200
# (Redis answers and the service accepted the key during the boot-time crawl).
if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server is not installed: Redis mode not replayed (.ci/run installs it)" >&2
  exit 1
fi
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no > "$work/redis.log" 2>&1 &
redis_pid=$!
# Slack's Web API, as far as the start needs it: the bot asks auth.test who it is before it listens.
slack_port=$(free_port)
"$node24_bin" -e "require('http').createServer((q,r)=>{r.setHeader('content-type','application/json');r.end(JSON.stringify(q.url.includes('auth.test')?{ok:true,user_id:'UIMAGE',bot_id:'BIMAGE'}:{ok:false,error:'unknown_method'}))}).listen($slack_port,'127.0.0.1')" &
slack_pid=$!
bot_port=$(free_port)
PORT="$bot_port" HOST=127.0.0.1 STORE_URL="redis://127.0.0.1:$redis_port/0" TICKETING_API_URL=simulator \
  SLACK_BOT_TOKEN="xox""b-image-check-$$" SLACK_SIGNING_SECRET="image-check-$$" SLACK_API_URL="http://127.0.0.1:$slack_port/api/" \
  "$node24_bin" dist/main.js > "$work/redis-mode.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$bot_port/readyz" > /dev/null 2>&1; then
    curl -fsS "http://127.0.0.1:$bot_port/metrics" | grep -q '^eventops_budget_remaining ' \
      && { echo "image steps ok: the pruned build on Node 24 is ready in Redis mode (/readyz 200, /metrics served)"; exit 0; }
  fi
  sleep 0.2
done
echo "the pruned build never became ready in Redis mode" >&2
cat "$work/redis-mode.log" >&2
exit 1
