import { herdProblems, type NoHerdOptions } from './assert';
import { formatHerd, type HerdReport } from './report';

/**
 * Matchers for vitest's (or Jest's) `expect.extend`: `expect(report).toStayUnderCapacity()`, with
 * {@link NoHerdOptions} as its argument. Its message prints the figures and the chart. It imports nothing from the
 * test runner; declare the type once in a setup file (see docs/testing-herd.md).
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
    const problems = herdProblems(received, options);
    return {
      pass: problems.length === 0,
      message: () =>
        problems.length === 0
          ? `expected the retries to herd the dependency, but they stayed under capacity:\n\n${formatHerd(received)}`
          : `the retries herd the dependency:\n${problems.join('\n')}\n\n${formatHerd(received)}`,
    };
  },
};
