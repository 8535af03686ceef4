import { headline, type NoHerdOptions, problemsOf } from './assert';
import { formatHerd, type HerdReport } from './report';

/**
 * Matchers for vitest's (or Jest's) `expect.extend`: `expect(report).toStayUnderCapacity()`, with
 * {@link NoHerdOptions} as its argument: the checks of `assertNoHerd`, the goodput check included (on by default:
 * code that stays under capacity by giving up on the calls fails it; `minSuccess: 0` turns it off). Its message
 * prints the figures and the chart. It imports nothing from the test runner; declare the type once in a setup file
 * (see docs/testing-herd.md).
 *
 * @example
 * ```ts
 * import { expect } from 'vitest';
 * import { herdMatchers } from 'herdless/testing';
 * expect.extend(herdMatchers);
 * expect(await herd(call)).toStayUnderCapacity({ maxPeakOverCapacity: 2 });
 * ```
 */
export const herdMatchers = {
  toStayUnderCapacity(received: HerdReport, options?: NoHerdOptions) {
    const problems = problemsOf(received, options);
    const pass = problems.load.length + problems.goodput.length === 0;
    return {
      pass,
      message: () =>
        pass
          ? `expected the retries to herd the dependency or give up on calls, but they stayed under capacity and enough calls succeeded:\n\n${formatHerd(received)}`
          : `${headline(problems)}:\n${[...problems.load, ...problems.goodput].join('\n')}\n\n${formatHerd(received)}`,
    };
  },
};
