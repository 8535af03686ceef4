/**
 * How long the fleet simulator takes at scale: 100,000 clients with 10 attempts each, every strategy, on the built
 * package. Run: npm run bench:simulate. Reported here, never asserted in tests.
 */
import { simulateOutage } from '../dist/simulate.js';

for (const capacity of [100, 10_000]) {
  const start = performance.now();
  const result = simulateOutage({ clients: 100_000, maxAttempts: 10, capacity });
  const ms = performance.now() - start;
  const requests = result.results.reduce((sum, r) => sum + r.requests, 0);
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
  console.log(
    `100,000 clients, 10 attempts, capacity ${capacity}/100 ms, ${result.results.length} strategies: ` +
      `${(ms / 1_000).toFixed(2)} s, ${requests.toLocaleString('en')} requests simulated ` +
      `(${((requests * 2) / (ms / 1_000) / 1e6).toFixed(1)} M events/s), heap ${heapMb.toFixed(0)} MB after`,
  );
}
