import type { ObservableResult } from '@opentelemetry/api';
import {
  type CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitState,
  type CircuitStateChange,
  createCircuitBreaker,
} from '../index';
import { fail, optionalFn } from './check';
import { attrs, instruments, observe, quietly } from './instruments';
import { ATTR_BREAKER, ATTR_CHANGE_REASON, ATTR_STATE } from './names';
import { type TelemetryOptions, telemetryOptions } from './options';
import { names } from './registry';

const STATES: readonly CircuitState[] = ['closed', 'open', 'half-open'];

/**
 * `createCircuitBreaker(options)`, observed: its state is the gauge `herdless.breaker.state` (1 for the state it is
 * in, 0 for the two others, by `herdless.breaker.state`), read from `breaker.state` at each collection; each change of
 * state counts in `herdless.breaker.transitions` (by the state entered and `herdless.breaker.change_reason`), counted
 * before your own `onStateChange` runs (which still runs, and whose errors are reported as before). Calls it refuses
 * before their first attempt count in `herdless.breaker.rejections` (for a policy from `withTelemetry` or `telemetryFetch`).
 *
 * The breaker is held weakly: one dropped is collected, and leaves the gauge.
 *
 * Choose it instead of `createCircuitBreaker` for every breaker of a service you run.
 *
 * @param options - The breaker's options, checked as `createCircuitBreaker` checks them. Default `{}`.
 * @param telemetry - `{ name, meterProvider? }`: see {@link TelemetryOptions}.
 * @throws TypeError or RangeError naming the bad option.
 *
 * @example
 * ```ts
 * import { observeBreaker, withTelemetry } from 'herdless/otel';
 * const breaker = observeBreaker({ consecutiveFailures: 5, breakMs: 10_000 }, { name: 'pricing-api' });
 * const policy = withTelemetry({ breaker }, { name: 'pricing-api' });
 * ```
 */
export function observeBreaker(options: CircuitBreakerOptions = {}, telemetry: TelemetryOptions): CircuitBreaker {
  if (options === null || typeof options !== 'object') fail(TypeError, 'the breaker options', 'an object', options);
  const { name, meterProvider } = telemetryOptions(telemetry, 'observeBreaker');
  const onStateChange = optionalFn('onStateChange', options.onStateChange);
  // Frozen once: 5 reasons x 3 states at most, so a transition allocates nothing.
  const byChange = new Map<string, ReturnType<typeof attrs>>();
  const breaker = createCircuitBreaker({
    ...options,
    onStateChange(change: CircuitStateChange) {
      // A broken meter's error goes to diag: it must not keep yours from running, nor reach the breaker.
      quietly(() => {
        const key = `${change.to}|${change.reason}`;
        let a = byChange.get(key);
        if (a === undefined) {
          a = attrs({ [ATTR_BREAKER]: name, [ATTR_STATE]: change.to, [ATTR_CHANGE_REASON]: change.reason });
          byChange.set(key, a);
        }
        instruments(meterProvider).breakerTransitions.add(1, a);
      });
      // Called as a method of the options, as createCircuitBreaker would call it.
      if (onStateChange !== undefined) onStateChange.call(options, change);
    },
  });
  const byState = STATES.map((state) => attrs({ [ATTR_BREAKER]: name, [ATTR_STATE]: state }));
  names.set(breaker, name);
  observe('breaker', {
    ref: new WeakRef(breaker),
    provider: meterProvider,
    report(target: object, result: ObservableResult) {
      let state: CircuitState;
      try {
        state = (target as CircuitBreaker).state;
      } catch {
        return; // a broken clock: no reading this time (the breaker's own calls report the error)
      }
      for (let i = 0; i < STATES.length; i++) result.observe(STATES[i] === state ? 1 : 0, byState[i]);
    },
  });
  return breaker;
}
