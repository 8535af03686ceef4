/**
 * npm run demo: the overload story and the partial-failure story, live. A real HTTP server on 127.0.0.1 serves 20
 * requests a second, first in first out; real fetch clients call it. Act 1: at 80% of its capacity, it slows to a
 * tenth for 4 s; does it come back? Acts 2 and 3: at 50% and 80%, it fails half of what it serves (a fast 503) for
 * 8 s; how many calls still succeed? Each act runs its lanes at once (the naive loop or no retries, full jitter, and
 * the recommended setup), each with its own server. Prints what each server saw and what each client got, a load
 * chart, and writes an SVG per act (herdless-demo.svg, herdless-demo-partial-50.svg, ...). About a minute; Ctrl-C
 * stops it early. `--quick` runs the same story with less traffic after the slowdown and shorter failures (about 50 s
 * on a loaded 2-core machine, for CI).
 */
import { resolve } from 'node:path';
import { formatMs } from '../src/simulate/index';
import { DEMO_USAGE, type DemoArgs, parseDemoArgs } from './args';
import { acts, demoSettings, QUICK } from './settings';
import { tell } from './story';

let values: DemoArgs;
try {
  values = parseDemoArgs(process.argv.slice(2));
} catch (error) {
  console.error(`demo: ${(error as Error).message} (see npm run demo -- --help)`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(DEMO_USAGE);
  process.exit(0);
}
const options = values.quick ? QUICK : {};
const svgPath = resolve(values.svg ?? 'herdless-demo.svg');
const story = acts(demoSettings(options));
const storyMs = story.reduce((ms, act) => ms + act.warmupMs + act.troubleMs + act.afterMs, 0);
const boundMs = storyMs + 20_000 * story.length; // the traffic, then at most 20 s an act to wind down

const interrupt = new AbortController();
const onSigint = () => interrupt.abort(new Error('interrupted'));
process.once('SIGINT', onSigint);
const deadline = setTimeout(
  () => interrupt.abort(new Error(`the demo ran past its ${formatMs(boundMs)} bound`)),
  boundMs,
);

try {
  process.exitCode = await tell({
    options,
    svgPath,
    signal: interrupt.signal,
    io: {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      errIsTTY: process.stderr.isTTY === true,
    },
  });
} finally {
  clearTimeout(deadline);
  process.off('SIGINT', onSigint);
}
