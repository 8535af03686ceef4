/**
 * The names herdless's telemetry uses, in one place: the meter, every instrument with its unit, every attribute.
 * They follow OpenTelemetry's naming rules: a `herdless.` namespace, dot-separated lower-case words with `_` inside a
 * word, a counter named for what it counts (plural) with the unit in curly braces (`{attempt}`), durations in
 * seconds (`s`), and no unit in a name. docs/otel.md lists them with their attributes, for a dashboard.
 */

/** The meter's name (its version is the package's). */
export const METER = 'herdless';

/** Attempts made, by outcome (`herdless.attempt.outcome`): a Counter in `{attempt}`. */
export const ATTEMPTS = 'herdless.retry.attempts';
/** Retries made (each counted before its sleep, once the policy's own `onRetry` has returned): a Counter in `{retry}`. */
export const RETRIES = 'herdless.retry.retries';
/** Each sleep before a retry: a Histogram in seconds. */
export const SLEEP = 'herdless.retry.sleep.duration';
/** Calls that gave up, by reason (`herdless.give_up.reason`): a Counter in `{call}`. */
export const GIVE_UPS = 'herdless.retry.give_ups';
/** The whole retries a budget holds now: an ObservableGauge in `{retry}`. */
export const BUDGET_AVAILABLE = 'herdless.budget.available';
/** Retries a budget refused (each ended its call with reason `budget`): a Counter in `{retry}`. */
export const BUDGET_REFUSALS = 'herdless.budget.refusals';
/** A breaker's state: an ObservableGauge, 1 for the state it is in and 0 for the two others. */
export const BREAKER_STATE = 'herdless.breaker.state';
/** A breaker's changes of state, by the state entered and why: a Counter in `{transition}`. */
export const BREAKER_TRANSITIONS = 'herdless.breaker.transitions';
/** Calls a breaker refused at their first attempt (a `CircuitOpenError`, `fn` never called): a Counter in `{call}`. */
export const BREAKER_REJECTIONS = 'herdless.breaker.rejections';
/**
 * Hedges decided (herdless/hedge), by outcome (`herdless.hedge.outcome`: `sent` or `refused`) and, when refused, why
 * (`herdless.hedge.refusal`): a Counter in `{hedge}`. Each hedge sent is also a physical attempt of its own: an HTTP
 * instrumentation records it as a span of its own (one span per physical attempt).
 */
export const HEDGES = 'herdless.hedge.hedges';

/** The name given to `withTelemetry` or `telemetryFetch`. */
export const ATTR_POLICY = 'herdless.policy.name';
/** An attempt's outcome: `success` or `failure`. */
export const ATTR_OUTCOME = 'herdless.attempt.outcome';
/** Why a call gave up: `attempts`, `timeout`, `retry-after`, `budget` or `circuit-open` (a `StopReason`). */
export const ATTR_REASON = 'herdless.give_up.reason';
/** The name given to `observeBudget`. */
export const ATTR_BUDGET = 'herdless.budget.name';
/** The name given to `observeBreaker`. */
export const ATTR_BREAKER = 'herdless.breaker.name';
/** A breaker's state: `closed`, `open` or `half-open` (for a transition: the state entered). */
export const ATTR_STATE = 'herdless.breaker.state';
/**
 * Why a breaker changed state (a `CircuitChangeReason`): `consecutive-failures`, `failure-ratio`, `break-elapsed`,
 * `probe-succeeded`, `probe-failed`, `isolated` or `reset`.
 */
export const ATTR_CHANGE_REASON = 'herdless.breaker.change_reason';
/**
 * The HTTP method, as OpenTelemetry's HTTP conventions spell it (a known method, else `_OTHER`): on telemetryFetch's
 * attempts, retries, sleeps, give-ups and `herdless.retry` span events.
 */
export const ATTR_METHOD = 'http.request.method';
/**
 * The response's status class: `1xx` to `5xx`; absent for a network error. On telemetryFetch's attempts, retries,
 * sleeps and `herdless.retry` span events.
 */
export const ATTR_STATUS_CLASS = 'herdless.http.status_class';
/** OpenTelemetry's `error.type`: an HTTP status code, else the error's `name` (on span events only). */
export const ATTR_ERROR_TYPE = 'error.type';
/** On a span event: the attempt that failed (1-based), or the attempts made when a call gave up. */
export const ATTR_ATTEMPT = 'herdless.retry.attempt';
/** On a `herdless.retry` span event: the sleep that follows, in seconds. */
export const ATTR_DELAY = 'herdless.retry.delay';
/** OpenTelemetry's HTTP resend count: 1 for the second attempt of a request, 2 for the third... */
export const ATTR_RESEND_COUNT = 'http.request.resend_count';

/** The name given to `hedgeTelemetry`. */
export const ATTR_HEDGE = 'herdless.hedge.name';
/** A hedge's outcome: `sent` or `refused`. */
export const ATTR_HEDGE_OUTCOME = 'herdless.hedge.outcome';
/** Why a hedge was refused: `load`, `budget` or `slow` (a `HedgeRefusal` of herdless/hedge). */
export const ATTR_HEDGE_REFUSAL = 'herdless.hedge.refusal';

/** The span event added on the caller's active span before each retry's sleep. */
export const EVENT_RETRY = 'herdless.retry';
/** The span event added on the caller's active span when a call gives up. */
export const EVENT_GIVE_UP = 'herdless.give_up';

/** The sleep histogram's bucket boundaries, in seconds: 5 ms to a minute (the default `maxRetryAfterMs`). */
export const SLEEP_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
