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
STORE_URL="sqlite://$work/data/eventops.sqlite" node24 dist/main.js > "$work/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do grep -q 'API key:' "$work/out.log" 2>/dev/null && break; sleep 0.2; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/out.log" | head -1)
key=$(grep 'API key:' "$work/out.log" | awk '{print $3}')
curl -fsS -H "Service-Api-Key: $key" "$url/v1/events?limit=2" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const b=JSON.parse(s);if(b.data.length!==2)process.exit(1);console.log("image steps ok: 2 events and a cursor from the pruned build on Node 24")})'
