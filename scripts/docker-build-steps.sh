#!/usr/bin/env bash
# The Dockerfile without Docker (CI has none): its build stage's steps on a clean checkout, the
# runtime stage's layout in a folder, then smoke tests of that folder as the image would run it
# (production dependencies only, the baked configuration, any working directory).
# Keep in step with the Dockerfile: test/container/build-steps.test.ts compares the two.
#
# Usage: scripts/docker-build-steps.sh [--worktree]
#   (default)   the committed tree, `git archive HEAD`, as CI builds it
#   --worktree  tracked plus untracked, not ignored files: try changes before they are committed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
step() { printf '\n--> %s\n' "$*"; }
fail() { printf 'docker-build-steps: %s\n' "$*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/podwarden-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
context=$work/context   # the build context
build=$work/build       # the build stage's /app
app=$work/app           # the runtime stage's /app
etc=$work/etc/podwarden # the runtime stage's /etc/podwarden
data=$work/data         # the /data volume
mkdir -p "$context" "$build" "$app" "$etc" "$data"

case ${1:-} in
  '')
    step "clean checkout of HEAD"
    git -C "$root" archive HEAD | tar -x -C "$context"
    ;;
  --worktree)
    step "checkout of the working tree (tracked and untracked, not ignored)"
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
      tar --null --ignore-failed-read -T - -c 2>/dev/null) | tar -x -C "$context"
    ;;
  *) fail "unknown argument \"$1\" (expected nothing or --worktree)" ;;
esac

step "build stage: npm ci, npm run build, npm prune --omit=dev"
cp "$context/package.json" "$context/package-lock.json" "$build/"
(cd "$build" && npm ci --no-audit --no-fund --prefer-offline)
cp "$context/tsconfig.json" "$context/tsconfig.build.json" "$build/"
cp -R "$context/src" "$build/src"
(cd "$build" && npm run build && npm prune --omit=dev --no-audit --no-fund)

step "runtime stage: node_modules, dist, package.json, migrations, config, the baked configuration"
mv "$build/node_modules" "$build/dist" "$app/"
cp "$context/package.json" "$app/"
cp -R "$context/migrations" "$context/config" "$app/"
cp "$context/config/docker/podwarden.yaml" "$etc/podwarden.yaml"
# The baked configuration keeps the database on /data; here that is a folder of our own.
sed "s#/data/#$data/#" "$etc/podwarden.yaml" >"$etc/podwarden.local.yaml"

# As the image runs it: production mode, the baked configuration, a working directory of its own.
podwarden() {
  (cd "$work" && NODE_ENV=production PODWARDEN_CONFIG="$etc/podwarden.local.yaml" node "$app/dist/main.js" "$@")
}

step "podwarden --version"
want=$(node -p "require('$context/package.json').version")
got=$(podwarden --version)
[[ $got == "$want" ]] || fail "--version printed \"$got\", package.json says \"$want\""
echo "$got"

step "check-config: the baked configuration (PODWARDEN_CONFIG) and the demo's"
RUNPOD_API_KEY=ci-dummy-key podwarden check-config | grep -q "path: $data/podwarden.db" ||
  fail "the baked configuration does not put the database on /data"
podwarden check-config --config "$app/config/demo.yaml" >/dev/null
echo ok

step "simulate: the daemon and the simulator from the pruned tree, ten scenario minutes"
podwarden simulate --scenario demo --until 10m --report "$work/report.json" 2>&1
node -e '
  const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (!(report.api.requests > 0)) throw new Error("the replay made no API requests");
' "$work/report.json"

step "demo: simulator, daemon and mail sink for a few seconds"
podwarden demo --for 3s --port 0 --dir "$work/demo" | tee "$work/demo.out"
grep -q 'Mail folder:' "$work/demo.out" || fail "the demo printed no mail folder"

printf '\ndocker-build-steps: ok\n'
