#!/usr/bin/env bash
# Installs the packed tarball into a scratch project, as a user would, and runs what it ships: the `herdless` bin and
# the `./simulate` export (ESM and CJS). Checks real output against seeded figures, so a build that packs a broken bin,
# a missing file or a wrong export map fails here. Needs `npm run build` first.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(node -p "require('./package.json').version")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tarball=$(npm pack --silent --pack-destination "$scratch" | tail -n 1)
cd "$scratch"
npm init -y >/dev/null
fail() { echo "smoke: $*" >&2; exit 1; }

# A user's install prints nothing about herdless's scripts (npm 11 warns about any install-time script, `prepare` too).
warnings=$(npm install --no-audit --no-fund --offline "./$tarball" 2>&1 >/dev/null)
! grep -q 'install-scripts' <<<"$warnings" || fail "npm install of the tarball warned: $warnings"
bin=./node_modules/.bin/herdless

got=$("$bin" --version)
[ "$got" = "$version" ] || fail "herdless --version printed '$got', expected '$version'"

out=$("$bin" simulate --clients 50)
grep -qx 'outage: 50 clients fail for 4 s, then the server serves 100 per 100 ms' <<<"$out" ||
  fail "herdless simulate --clients 50: no header line; output was: $out"
# Seed 1 is the default: every client of the no-backoff strategy spends its 10 attempts inside the 4 s outage.
grep -qE '^immediate +500 +10\.00 ' <<<"$out" || fail "herdless simulate --clients 50: immediate row is not 500 requests"
full_cli=$(grep -E '^full +[0-9]' <<<"$out" | awk '{print $2}')

check='
  const r = simulateOutage({ clients: 50 });
  const again = simulateOutage({ clients: 50 });
  const by = Object.fromEntries(r.results.map((x) => [x.strategy, x]));
  const problems = [];
  if (JSON.stringify(r) !== JSON.stringify(again)) problems.push("same seed, different results");
  if (r.settings.clients !== 50 || r.settings.seed !== 1) problems.push("settings " + JSON.stringify(r.settings));
  if (by.immediate.requests !== 500 || by.immediate.gaveUp !== 50) problems.push("immediate " + JSON.stringify(by.immediate));
  if (by.full.requests !== Number(process.argv[1])) problems.push("full requests " + by.full.requests + " but the bin printed " + process.argv[1]);
  for (const x of r.results) if (x.succeeded + x.gaveUp !== 50) problems.push(x.strategy + " does not add up");
  if (!/^immediate +500 +10\.00 /m.test(outageTable(r.results, r.settings.capacity))) problems.push("outageTable has no immediate row");
  if (problems.length) { console.error(problems.join("\n")); process.exit(1); }
'
node --input-type=module -e "import { simulateOutage, outageTable } from 'herdless/simulate'; $check" "$full_cli" ||
  fail "import 'herdless/simulate' (ESM)"
node -e "const { simulateOutage, outageTable } = require('herdless/simulate'); $check" "$full_cli" ||
  fail "require('herdless/simulate') (CJS)"
node --input-type=module -e "import { retry } from 'herdless'; let n = 0; const v = await retry(() => { if (++n < 3) throw Object.assign(new Error('x'), { status: 503 }); return n; }, { baseMs: 0 }); if (v !== 3) process.exit(1);" ||
  fail "import 'herdless' (ESM): retry"
node -e "const { retry } = require('herdless'); let n = 0; retry(() => { if (++n < 3) throw Object.assign(new Error('x'), { status: 503 }); return n; }, { baseMs: 0 }).then((v) => { if (v !== 3) process.exit(1); });" ||
  fail "require('herdless') (CJS): retry"
# ./testing resolves in ESM and CJS; its peers are optional and not installed here, so herd() must say which one to add.
peer='
  herd(() => {}).then(() => process.exit(1), (e) => {
    if (!/optional peer dependency .@sinonjs\/fake-timers/.test(e.message)) { console.error(e.message); process.exit(1); }
    if (typeof assertNoHerd !== "function" || typeof herdChart !== "function") process.exit(1);
  });
'
node --input-type=module -e "import { herd, assertNoHerd, herdChart } from 'herdless/testing'; $peer" ||
  fail "import 'herdless/testing' (ESM)"
node -e "const { herd, assertNoHerd, herdChart } = require('herdless/testing'); $peer" ||
  fail "require('herdless/testing') (CJS)"
# A Node-only strict TypeScript project, as TypeScript's defaults have it: no DOM library, skipLibCheck false. The
# declarations must compile there (the DOM's RequestInfo once broke them) and keep fetch's input typed, not any.
mkdir -p node_modules/@types
ln -s "$root/node_modules/@types/node" node_modules/@types/node
ln -s "$root/node_modules/undici-types" node_modules/undici-types
cat >tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "es2022",
    "lib": ["es2022"],
    "types": ["node"],
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "skipLibCheck": false,
    "noEmit": true
  },
  "files": ["esm.mts", "cjs.cts"]
}
JSON
for ext in mts cts; do
  cat >"$( [ $ext = mts ] && echo esm || echo cjs ).$ext" <<'TS'
import { createPolicy, type Fetch, givenUp, retryingFetch, type StopReason } from 'herdless';
import type { HerdContext } from 'herdless/testing';
// herdless/testing's types compile without the DOM library too (review: its fetch named RequestInfo)
export const viaHerd = (context: HerdContext): Promise<Response> => context.fetch(new URL(context.url));
const fetchWithRetry: Fetch = retryingFetch({ ...createPolicy({ maxAttempts: 3 }), attemptHeader: 'X-Attempt' });
export async function items(): Promise<unknown> {
  const res = await fetchWithRetry(new URL('http://127.0.0.1/'), { method: 'POST' });
  const why: StopReason | undefined = givenUp(res);
  if (!res.ok) throw new Error(`HTTP ${res.status} (${why ?? 'not retried'})`);
  // @ts-expect-error fetch's input is typed (string, URL or Request), not any
  await fetchWithRetry(42);
  return res.json();
}
TS
done
"$root/node_modules/.bin/tsc" -p . || fail "a Node-only strict TypeScript project (lib es2022, types node, skipLibCheck false) does not type-check"

echo "smoke: herdless $version from the tarball: bin --version, bin simulate, ./simulate (ESM, CJS), ./testing (ESM, CJS), retry (ESM, CJS), Node-only strict TypeScript (ESM, CJS) ok"
