import type { ObservableResult } from '@opentelemetry/api';
import { createRetryBudget, type RetryBudget, type RetryBudgetOptions } from '../index';
import { attrs, observe } from './instruments';
import { ATTR_BUDGET } from './names';
import { type TelemetryOptions, telemetryOptions } from './options';
import { names } from './registry';

/**
 * `createRetryBudget(options)`, observed: the whole retries it holds are the gauge `herdless.budget.available`, read
 * from `budget.available()` at each collection (for a budget with a volume cap, `ratio`: one without holds Infinity
 * and reports no point), and each retry it refuses (a call that gave up with reason `budget`,
 * under a policy from `withTelemetry`, or through `telemetryFetch`) counts in `herdless.budget.refusals`, both by
 * `herdless.budget.name`.
 *
 * The budget is held weakly: one dropped is collected, and leaves the gauge.
 *
 * Choose it instead of `createRetryBudget` for every budget of a service you run.
 *
 * @param options - The budget's options, checked as `createRetryBudget` checks them. Default `{}`.
 * @param telemetry - `{ name, meterProvider? }`: see {@link TelemetryOptions}.
 * @throws TypeError or RangeError naming the bad option.
 *
 * @example
 * ```ts
 * import { observeBudget, withTelemetry } from 'herdless/otel';
 * const budget = observeBudget({ ratio: 0.1, minPerSecond: 10 }, { name: 'pricing-api' }); // a volume cap
 * const policy = withTelemetry({ budget }, { name: 'pricing-api' });
 * ```
 */
export function observeBudget(options: RetryBudgetOptions = {}, telemetry: TelemetryOptions): RetryBudget {
  const budget = createRetryBudget(options);
  const { name, meterProvider } = telemetryOptions(telemetry, 'observeBudget');
  const a = attrs({ [ATTR_BUDGET]: name });
  names.set(budget, name);
  observe('budget', {
    ref: new WeakRef(budget),
    provider: meterProvider,
    report(target: object, result: ObservableResult) {
      let available: number;
      try {
        available = (target as RetryBudget).available();
      } catch {
        return; // a broken clock: no reading this time
      }
      // A budget without a volume cap (no `ratio`) holds Infinity: no number to chart, so no point.
      if (Number.isFinite(available)) result.observe(available, a);
    },
  });
  return budget;
}
