import { describe, expect, it } from 'vitest';
import { createHedge, type HedgeEvent, type HedgeOptions, hedged } from '../src/hedge/index';
import { retry } from '../src/index';
import { hedgeTelemetry, names } from '../src/otel/index';
import { settle, useFakeClock } from './helpers';
import { point, useOtel } from './otel-setup';

const fake = useFakeClock();
const otel = useOtel();

/** An attempt that answers after `ms`, or rejects with its signal's reason once aborted. */
const after =
  (ms: number) =>
  ({ signal }: { signal: AbortSignal }) =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => resolve(ms), ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });

describe('hedgeTelemetry', () => {
  it('counts each hedge sent and refused, by name, outcome and refusal; your onHedge still runs', async () => {
    const seen: HedgeEvent[] = [];
    const options = hedgeTelemetry(
      { delayMs: 10, maxExtraLoad: 0.5, onHedge: (e: HedgeEvent) => void seen.push(e) },
      { name: 'pricing-api', meterProvider: otel.meterProvider },
    );
    expect(Object.isFrozen(options)).toBe(true);
    const hedge = createHedge(options);
    for (let k = 0; k < 4; k++) {
      let n = 0;
      const call = settle(retry(hedged((c) => after(n++ === 0 ? 100 : 5)(c), hedge)));
      await fake.clock.tickAsync(100);
      expect(call.result.status).toBe('fulfilled');
    }
    // 4 calls at 0.5 a call: hedges for the 2nd and the 4th, the 1st and 3rd refused (load).
    expect(seen.map((e) => e.sent)).toEqual([false, true, false, true]);
    const m = await otel.collect();
    const hedges = m[names.HEDGES];
    expect(hedges?.unit).toBe('{hedge}');
    expect(point(hedges, { 'herdless.hedge.name': 'pricing-api', 'herdless.hedge.outcome': 'sent' })).toBe(2);
    expect(
      point(hedges, {
        'herdless.hedge.name': 'pricing-api',
        'herdless.hedge.outcome': 'refused',
        'herdless.hedge.refusal': 'load',
      }),
    ).toBe(2);
  });

  it('records into the global provider by default, and checks its options', () => {
    const options = hedgeTelemetry({} as HedgeOptions, { name: 'x' });
    expect(typeof options.onHedge).toBe('function');
    expect(() => hedgeTelemetry(null as never, { name: 'x' })).toThrow(/the hedge options must be an object/);
    expect(() => hedgeTelemetry({ onHedge: 1 } as never, { name: 'x' })).toThrow(/onHedge must be a function/);
    expect(() => hedgeTelemetry({}, { name: '' })).toThrow(/name must be a non-empty string/);
  });
});
