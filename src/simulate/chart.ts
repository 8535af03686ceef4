/** One line of a load chart: a name and requests per window, from time 0. */
export interface LoadSeries {
  readonly name: string;
  readonly load: readonly number[];
}

/** What the charts need to know besides the series. */
export interface ChartOptions {
  /** The width of one window, in ms. */
  readonly windowMs: number;
  /** The server's capacity per window, marked on the chart. */
  readonly capacity: number;
  /** When the outage ended, in ms, marked on the chart (omit for none). */
  readonly outageMs?: number;
  readonly title?: string;
}

const BARS = ' ▁▂▃▄▅▆▇█';

/** What both charts show: the outage and the 10 s after it, in windows, out of `total` windows in the run. */
function view(series: readonly LoadSeries[], options: ChartOptions): { total: number; windows: number } {
  const total = Math.max(1, ...series.map((s) => s.load.length));
  return { total, windows: Math.min(total, Math.ceil(((options.outageMs ?? 0) + 10_000) / options.windowMs)) };
}

/**
 * A terminal chart, one row per series, that fits in 80 columns. Each character is the busiest window in its span of
 * time, on one scale shared by every row: a full block is 4x capacity or more (a `!` below marks a span over
 * capacity), so a row that stays at or under ▂ never overloaded the server. The chart covers the outage and the
 * 10 s after it (a row cut there ends in `>`); the figures table has the whole run.
 */
export function terminalChart(series: readonly LoadSeries[], options: ChartOptions, width = 56): string {
  const { windows } = view(series, options);
  const label = Math.max(...series.map((s) => s.name.length), 4);
  const span = Math.ceil(windows / Math.min(width, 77 - label));
  const columns = Math.ceil(windows / span);
  const top = 4 * options.capacity;
  const lines = [
    `requests per ${options.windowMs} ms, a column = ${formatMs(span * options.windowMs)}: █ >= ${top}, ▂ = capacity ${options.capacity}, ! over it`,
  ];
  for (const s of series) {
    let bars = '';
    let over = '';
    for (let c = 0; c < columns; c++) {
      const peak = Math.max(0, ...s.load.slice(c * span, (c + 1) * span));
      bars += peak === 0 ? ' ' : (BARS[Math.min(8, Math.max(1, Math.ceil((peak / top) * 8)))] as string);
      over += peak > options.capacity ? '!' : ' ';
    }
    const cut = s.load.length > columns * span ? '>' : '|';
    lines.push(`${s.name.padEnd(label)} |${bars}${cut}`);
    if (over.trim()) lines.push(`${''.padEnd(label)}  ${over.trimEnd()}`);
  }
  if (options.outageMs !== undefined && options.outageMs > 0) {
    const column = Math.min(columns - 1, Math.floor(options.outageMs / options.windowMs / span));
    lines.push(`${''.padEnd(label)}  ${outageMarker(column, 78 - label)}`);
  }
  const end = formatMs(columns * span * options.windowMs);
  lines.push(`${''.padEnd(label)}  0 s${end.padStart(columns - 3)}`);
  return lines.join('\n');
}

/**
 * The marker under the bars: a `^` in the column where the outage ends, its label to the right of it, or to the left
 * when the line would pass `room` characters (the label never shifts the `^`).
 */
function outageMarker(column: number, room: number): string {
  const text = 'outage ends';
  if (column + 2 + text.length <= room) return `${' '.repeat(column)}^ ${text}`;
  if (column >= text.length + 1) return `${' '.repeat(column - text.length - 1)}${text} ^`;
  return `${' '.repeat(column)}^`;
}

/** Milliseconds as a short human figure: 850 ms, 4.2 s, 33 s. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  return ms < 10_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms / 1_000)} s`;
}

const COLORS = ['#d62728', '#ff7f0e', '#8c564b', '#1f77b4', '#2ca02c', '#9467bd', '#e377c2', '#17becf'];
const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A self-contained SVG line chart: requests per window against time, one line per series, the capacity as a dashed
 * line, the end of the outage marked, labelled axes and a legend. No scripts, fonts or links.
 */
export function svgChart(series: readonly LoadSeries[], options: ChartOptions): string {
  const [W, H] = [960, 480];
  const longest = Math.max(...series.map((s) => s.name.length + 16));
  const m = { left: 70, right: Math.max(170, 44 + 7 * longest), top: 48, bottom: 56 };
  const plotW = W - m.left - m.right;
  const plotH = H - m.top - m.bottom;
  // The same view as the terminal chart: the outage and the 10 s after it, on a scale set by the load after the outage
  // (what the recovering server meets); a burst during the outage above that scale is clipped and named.
  const { total, windows } = view(series, options);
  const endMs = windows * options.windowMs;
  const firstAfter = Math.ceil((options.outageMs ?? 0) / options.windowMs);
  const after = series.flatMap((s) => s.load.slice(firstAfter, windows));
  const top = niceCeiling(Math.max(options.capacity * 1.5, ...after) * 1.1);
  const clipped = series.filter((s) => Math.max(0, ...s.load.slice(0, windows)) > top);
  const x = (ms: number) => m.left + (ms / endMs) * plotW;
  const y = (n: number) => m.top + plotH - (Math.min(n, top) / top) * plotH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(
    `<text x="${m.left}" y="26" font-size="16" font-weight="bold">${xml(options.title ?? 'Requests reaching the server')}</text>`,
  );
  for (let i = 0; i <= 5; i++) {
    const v = (top / 5) * i;
    out.push(
      `<line x1="${m.left}" x2="${m.left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`,
    );
    out.push(`<text x="${m.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${Math.round(v)}</text>`);
  }
  const stepMs = niceCeiling(endMs / 10);
  for (let t = 0; t <= endMs; t += stepMs) {
    out.push(
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${m.top + plotH}" y2="${m.top + plotH + 5}" stroke="#333"/>`,
    );
    out.push(`<text x="${x(t).toFixed(1)}" y="${m.top + plotH + 20}" text-anchor="middle">${t / 1_000}</text>`);
  }
  out.push(`<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${m.top + plotH}" y2="${m.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${m.left + plotW / 2}" y="${H - 14}" text-anchor="middle">time (s)</text>`);
  out.push(
    `<text transform="translate(18 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">requests per ${options.windowMs} ms</text>`,
  );
  if (options.outageMs !== undefined && options.outageMs > 0) {
    const ox = x(options.outageMs).toFixed(1);
    out.push(
      `<rect x="${m.left}" y="${m.top}" width="${(x(options.outageMs) - m.left).toFixed(1)}" height="${plotH}" fill="#f3f3f3"/>`,
    );
    out.push(`<text x="${ox}" y="${m.top - 6}" text-anchor="middle" fill="#666">outage ends</text>`);
  }
  const cy = y(options.capacity).toFixed(1);
  out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${cy}" y2="${cy}" stroke="#000" stroke-dasharray="6 4"/>`);
  out.push(
    `<text x="${m.left + plotW + 6}" y="${(y(options.capacity) + 4).toFixed(1)}">capacity ${options.capacity}</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = s.load
      .slice(0, windows)
      .map((n, w) => `${x((w + 0.5) * options.windowMs).toFixed(1)},${y(n).toFixed(1)}`)
      .join(' ');
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.6" points="${points}"/>`);
    const ly = m.top + 30 + i * 20;
    out.push(
      `<line x1="${m.left + plotW + 6}" x2="${m.left + plotW + 30}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="3"/>`,
    );
    out.push(`<text x="${m.left + plotW + 36}" y="${ly + 4}">${xml(s.name)}</text>`);
  });
  clipped.forEach((s, i) => {
    const peak = Math.max(...s.load.slice(0, windows));
    const ny = m.top + 44 + (series.length + i) * 20;
    out.push(
      `<text x="${m.left + plotW + 6}" y="${ny}" fill="#666" font-size="11">${xml(s.name)}: ${peak} (clipped)</text>`,
    );
  });
  if (total > windows) {
    out.push(
      `<text x="${m.left + plotW}" y="${H - 14}" text-anchor="end" fill="#666" font-size="11">cut at ${formatMs(endMs)}; runs last to ${formatMs(total * options.windowMs)}</text>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The smallest of 1, 2, 5 times a power of ten that is >= value. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
  for (const k of [1, 2, 5, 10]) if (k * power >= value) return k * power;
  return 10 * power;
}
