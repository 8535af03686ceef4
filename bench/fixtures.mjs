/** The work the benchmarks share, so that every bench measures the same fn and the same hand-written loops. */

/** An async fn that succeeds at once. */
export const succeed = async () => 1;

const busy = Object.assign(new Error('busy'), { status: 503 });

/** A fresh fn that fails twice with a 503, then succeeds: the zero-delay retry path. */
export function failsTwice() {
  let n = 0;
  return async () => {
    if (++n < 3) throw busy;
    return n;
  };
}

/** The retry loop many codebases have, with a jittered exponential wait (or none, with `wait: false`). */
export async function handWritten(work, { attempts = 3, wait = true } = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts) throw error;
      if (wait) await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** (attempt - 1)));
    }
  }
}
