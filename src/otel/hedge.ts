import type { Attributes } from '@opentelemetry/api';
import { fail, optionalFn } from './check';
import { attrs, instruments, quietly } from './instruments';
import { ATTR_HEDGE, ATTR_HEDGE_OUTCOME, ATTR_HEDGE_REFUSAL } from './names';
import { type TelemetryOptions, telemetryOptions } from './options';

/** What `hedgeTelemetry` reads of a hedge's event (herdless/hedge's `HedgeEvent`). */
interface Decided {
  readonly sent: boolean;
  readonly reason: string | undefined;
}

/**
 * herdless/hedge's options, with telemetry added to their `onHedge`: each hedge sent or refused counts in
 * `herdless.hedge.hedges`, by `herdless.hedge.name`, `herdless.hedge.outcome` (`sent`, `refused`) and, when refused,
 * `herdless.hedge.refusal` (`load`, `budget`, `slow`). Your own `onHedge` still runs, after the count. Give the result
 * to `createHedge`. The hedges themselves are physical attempts: an HTTP instrumentation records each as a span of its
 * own (OpenTelemetry's one span per physical attempt), and `retry()`'s telemetry (`withTelemetry`, `telemetryFetch`)
 * counts the rounds.
 *
 * Choose it for every hedge of a service you run: the share of hedges refused for `slow` or `budget` is how a
 * dashboard tells that a dependency slowed down as a whole.
 *
 * @param options - The hedge's options (`HedgeOptions`), passed on as they are but for `onHedge`.
 * @param telemetry - `{ name, meterProvider? }`: see {@link TelemetryOptions}.
 * @throws TypeError naming the bad option.
 *
 * @example
 * ```ts
 * import { createHedge } from 'herdless/hedge';
 * import { hedgeTelemetry } from 'herdless/otel';
 * const hedge = createHedge(hedgeTelemetry({ delayMs: 50 }, { name: 'pricing-api' }));
 * ```
 */
export function hedgeTelemetry<O extends { readonly onHedge?: ((event: never) => void) | undefined }>(
  options: O,
  telemetry: TelemetryOptions,
): O {
  if (options === null || typeof options !== 'object') fail(TypeError, 'the hedge options', 'an object', options);
  const { name, meterProvider } = telemetryOptions(telemetry, 'hedgeTelemetry');
  const mine = optionalFn('onHedge', options.onHedge as ((event: Decided) => void) | undefined);
  const sent = attrs({ [ATTR_HEDGE]: name, [ATTR_HEDGE_OUTCOME]: 'sent' });
  const refused = new Map<string, Attributes>();
  const onHedge = (event: Decided) => {
    quietly(() => {
      let a = sent;
      if (!event.sent) {
        const reason = String(event.reason);
        a =
          refused.get(reason) ??
          attrs({ [ATTR_HEDGE]: name, [ATTR_HEDGE_OUTCOME]: 'refused', [ATTR_HEDGE_REFUSAL]: reason });
        refused.set(reason, a);
      }
      instruments(meterProvider).hedges.add(1, a);
    });
    mine?.(event);
  };
  return Object.freeze({ ...options, onHedge });
}
