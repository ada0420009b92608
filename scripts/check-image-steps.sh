#!/usr/bin/env bash
# No Docker engine runs on the build machines, so this replays the Dockerfile's steps by hand on
# the image's Node major (24, from the npm registry's `node` package) in a scratch folder: install,
# build, prune to production dependencies, then start the result and query its simulator.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
node24() { npx -y -p node@24 -- node "$@"; }
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
PORT=0 STORE_URL="sqlite://$work/data/eventops.sqlite" node24 dist/main.js > "$work/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q 'open http' "$work/out.log" 2>/dev/null && break; sleep 0.2; done
url=$(grep -o 'open http://127.0.0.1:[0-9]*/' "$work/out.log" | head -1 | cut -c6-)
curl -fsS "$url" | grep -q 'eventops sandbox'
curl -fsS -X POST -H 'content-type: application/json' -d '{"user":"UEDITOR01","channel":"CGENERAL01","text":"/events list"}' "${url}ui/command" > /dev/null
for _ in $(seq 1 50); do
  curl -fsS "${url}ui/state?user=UEDITOR01" | grep -q 'Upcoming events' && { echo "image steps ok: the pruned build on Node 24 answered /events list in its sandbox"; exit 0; }
  sleep 0.2
done
echo "the sandbox never showed the list" >&2
cat "$work/out.log" >&2
exit 1
