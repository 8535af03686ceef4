#!/usr/bin/env bash
# Regenerates the simulator figures in docs/ (and their copies in docs/protection.md; docs/outage.txt's copy in
# docs/guide/simulate.md is checked by test/cli.test.ts and pasted by hand when the table changes)
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
old_o=$(cat docs/overload.txt); old_q=$(cat docs/overload-1s.txt); old_p=$(cat docs/partial.txt)
npx tsx src/cli.ts simulate --svg docs/outage.svg | head -n -2 > docs/outage.txt
npx tsx src/cli.ts simulate --scenario overload --svg docs/overload.svg | head -n -2 > docs/overload.txt
npx tsx src/cli.ts simulate --scenario overload --queue-limit 1s --svg docs/overload-1s.svg | head -n -2 > docs/overload-1s.txt
npx tsx src/cli.ts simulate --scenario partial --load 0.8 --svg docs/partial.svg | head -n -2 > docs/partial.txt
npx tsx src/cli.ts simulate --scenario matrix --svg docs/matrix.svg | head -n -2 > docs/matrix.txt
npx tsx src/cli.ts simulate --scenario matrix --json > docs/matrix.json
python3 - <<'PY'
import re
p='docs/protection.md'; s=open(p).read()
blocks=re.findall(r'(```text\n\$ [^\n]*\n)(.*?)(```)', s, re.S)
files={'--scenario overload\n':'docs/overload.txt','--queue-limit 1s\n':'docs/overload-1s.txt','--load 0.8\n':'docs/partial.txt'}
out=s
for head,body,end in blocks:
    for k,f in files.items():
        if head.endswith(k):
            out=out.replace(head+body+end, head+open(f).read()+end)
open(p,'w').write(out)
PY
echo regenerated
