/** One line of a load chart: a name and requests per window, from time 0. */
export interface LoadSeries {
  readonly name: string;
  readonly load: readonly number[];
  /** A few words shown after the name in the SVG panel's title (the overload's goodput, say). */
  readonly note?: string | undefined;
}

/** What the charts need to know besides the series. */
export interface ChartOptions {
  /** The width of one window, in ms. */
  readonly windowMs: number;
  /** The server's capacity per window, marked on the chart. */
  readonly capacity: number;
  /** When the outage ended, in ms, marked on the chart (omit for none). */
  readonly outageMs?: number | undefined;
  /** When the outage began, in ms: the shaded span is from here to `outageMs`. Default 0. */
  readonly outageFromMs?: number | undefined;
  /** What to call it: `'outage'` (default) or, say, `'slowdown'`. */
  readonly outageLabel?: string | undefined;
  /** The end of the time shown, in ms. Default: the outage's end plus 10 s. */
  readonly viewMs?: number | undefined;
  readonly title?: string | undefined;
}

const BARS = ' ▁▂▃▄▅▆▇█';

/**
 * The largest of `values[from..to)` and `floor`, by a loop: `Math.max(...values)` passes each value as an argument,
 * and a run of millions of windows (a long outage in windows of 1 ms) overflows the stack.
 */
function peakOf(values: readonly number[], floor: number, from = 0, to = values.length): number {
  let peak = floor;
  const end = Math.min(to, values.length);
  for (let i = from; i < end; i++) if ((values[i] as number) > peak) peak = values[i] as number;
  return peak;
}

/**
 * What both charts show: the outage and the 10 s after it, in windows, out of `total` windows in the run; a run that
 * ended before the outage did (every client gave up inside it) is shown to the outage's end, so its marker is in range.
 */
function view(series: readonly LoadSeries[], options: ChartOptions): { total: number; windows: number } {
  const total = series.reduce((most, s) => Math.max(most, s.load.length), 1);
  const viewMs = options.viewMs ?? (options.outageMs ?? 0) + 10_000;
  const shown = Math.max(total, Math.ceil((options.outageMs ?? 0) / options.windowMs));
  return { total, windows: Math.min(shown, Math.ceil(viewMs / options.windowMs)) };
}

/**
 * A terminal chart, one row per series, that fits in 80 columns. Each character is the busiest window in its span of
 * time, on one scale shared by every row: a full block is 4x capacity or more (a `!` below marks a span over
 * capacity), so a row that stays at or under ▂ never overloaded the server. The chart covers the outage and the
 * 10 s after it (a row cut there ends in `>`); the figures table has the whole run.
 */
export function terminalChart(series: readonly LoadSeries[], options: ChartOptions, width = 56): string {
  const { windows } = view(series, options);
  const label = series.reduce((most, s) => Math.max(most, s.name.length), 4);
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
      const peak = peakOf(s.load, 0, c * span, (c + 1) * span);
      bars += peak === 0 ? ' ' : (BARS[Math.min(8, Math.max(1, Math.ceil((peak / top) * 8)))] as string);
      over += peak > options.capacity ? '!' : ' ';
    }
    const cut = s.load.length > columns * span ? '>' : '|';
    lines.push(`${s.name.padEnd(label)} |${bars}${cut}`);
    if (over.trim()) lines.push(`${''.padEnd(label)}  ${over.trimEnd()}`);
  }
  if (options.outageMs !== undefined && options.outageMs > 0) {
    const column = Math.min(columns - 1, Math.floor(options.outageMs / options.windowMs / span));
    lines.push(`${''.padEnd(label)}  ${outageMarker(column, 78 - label, options.outageLabel)}`);
  }
  // The time at the last column's end, right-aligned under it; at least a space after `0 s` on a short run.
  const end = formatMs(columns * span * options.windowMs);
  lines.push(`${''.padEnd(label)}  0 s${end.padStart(Math.max(columns - 3, end.length + 1))}`);
  return lines.join('\n');
}

/**
 * The marker under the bars: a `^` in the column where the outage ends, its label to the right of it, or to the left
 * when the line would pass `room` characters (the label never shifts the `^`).
 */
function outageMarker(column: number, room: number, label = 'outage'): string {
  const text = `${label} ends`;
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
/** Text made safe for SVG/XML content. */
export const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A self-contained SVG chart as small multiples: one panel per series, stacked, on shared axes (the same time span
 * and the same scale of requests per window), each with the capacity as a dashed line and the outage (or slowdown)
 * shaded, so that no line hides another. A burst above the shared scale is clipped and its peak named in the panel's
 * title. No scripts, fonts or links.
 */
export function svgChart(series: readonly LoadSeries[], options: ChartOptions): string {
  const W = 960;
  const m = { left: 70, right: 24, top: 72, bottom: 48 }; // top: the title, the legend line, then the first panel's name
  const [panelH, gap] = [96, 30];
  const H = m.top + series.length * (panelH + gap) - gap + m.bottom;
  const plotW = W - m.left - m.right;
  const { total, windows } = view(series, options);
  const endMs = windows * options.windowMs;
  const highest = series.reduce((most, s) => peakOf(s.load, most, 0, windows), 0);
  const top = niceCeiling(Math.min(4 * options.capacity, Math.max(1.5 * options.capacity, highest)) * 1.05);
  const x = (ms: number) => m.left + (ms / endMs) * plotW;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(
    `<text x="${m.left}" y="24" font-size="16" font-weight="bold">${xml(options.title ?? 'Requests reaching the server')}</text>`,
  );
  const label = options.outageLabel ?? 'outage';
  out.push(
    `<text x="${m.left}" y="42" fill="#555">requests per ${options.windowMs} ms, one panel per strategy on the same scale; dashed: capacity ${options.capacity}; shaded: the ${xml(label)}</text>`,
  );
  const stepMs = niceCeiling(endMs / 10);
  series.forEach((s, i) => {
    const py = m.top + i * (panelH + gap);
    const y = (n: number) => py + panelH - (Math.min(n, top) / top) * panelH;
    const color = COLORS[i % COLORS.length];
    out.push(
      `<text x="${m.left}" y="${py - 6}" font-weight="bold">${xml(panelTitle(s, options, windows, top))}</text>`,
    );
    if (options.outageMs !== undefined && options.outageMs > 0) {
      const from = x(options.outageFromMs ?? 0);
      out.push(
        `<rect x="${from.toFixed(1)}" y="${py}" width="${(x(options.outageMs) - from).toFixed(1)}" height="${panelH}" fill="#ececec"/>`,
      );
    }
    for (const v of [0, top / 2, top]) {
      out.push(
        `<line x1="${m.left}" x2="${m.left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`,
      );
      out.push(`<text x="${m.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${Math.round(v)}</text>`);
    }
    out.push(`<line x1="${m.left}" x2="${m.left}" y1="${py}" y2="${py + panelH}" stroke="#333"/>`);
    out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${py + panelH}" y2="${py + panelH}" stroke="#333"/>`);
    for (let t = 0; t <= endMs; t += stepMs) {
      out.push(
        `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${py + panelH}" y2="${py + panelH + 4}" stroke="#333"/>`,
      );
    }
    const cy = y(options.capacity).toFixed(1);
    out.push(
      `<line x1="${m.left}" x2="${m.left + plotW}" y1="${cy}" y2="${cy}" stroke="#000" stroke-dasharray="6 4"/>`,
    );
    const points = polyline(s.load, windows, (ms, n) => `${x(ms).toFixed(1)},${y(n).toFixed(1)}`, options.windowMs);
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.6" points="${points}"/>`);
  });
  const axisY = m.top + series.length * (panelH + gap) - gap;
  for (let t = 0; t <= endMs; t += stepMs) {
    out.push(`<text x="${x(t).toFixed(1)}" y="${axisY + 18}" text-anchor="middle">${t / 1_000}</text>`);
  }
  out.push(`<text x="${m.left + plotW / 2}" y="${H - 10}" text-anchor="middle">time (s)</text>`);
  if (total > windows) {
    out.push(
      `<text x="${m.left + plotW}" y="${H - 10}" text-anchor="end" fill="#666" font-size="11">cut at ${formatMs(endMs)}; runs last to ${formatMs(total * options.windowMs)}</text>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/**
 * A panel's title: the name; with an outage, the peak after it, as the figures table's `peak/N` gives it (the first
 * wave, before the outage ends, named apart when it is clipped); then the series' note.
 */
function panelTitle(s: LoadSeries, options: ChartOptions, windows: number, top: number): string {
  let title = s.name;
  if (options.outageMs !== undefined && options.outageMs > 0) {
    const firstAfter = Math.ceil(options.outageMs / options.windowMs);
    const after = peakOf(s.load, 0, firstAfter);
    const before = peakOf(s.load, 0, 0, Math.min(firstAfter, windows));
    const label = options.outageLabel ?? 'outage';
    title += `: peak ${after} after the ${label}${after > top ? ' (clipped)' : ''}`;
    if (before > top) title += `; ${before} before its end (clipped)`;
  } else {
    const peak = peakOf(s.load, 0, 0, windows);
    if (peak > top) title += ` (peak ${peak}, clipped)`;
  }
  return s.note ? `${title}; ${s.note}` : title;
}

/**
 * At most {@link MAX_POINTS} points: one per window, or past that many windows (a long run in short windows) one per
 * span of windows, at the span's middle, with its busiest window's count, so a burst still shows and the SVG stays
 * small.
 */
function polyline(
  load: readonly number[],
  windows: number,
  point: (ms: number, n: number) => string,
  windowMs: number,
): string {
  const span = Math.ceil(windows / MAX_POINTS);
  const points: string[] = [];
  for (let from = 0; from < Math.min(windows, load.length); from += span) {
    const to = Math.min(from + span, windows, load.length);
    points.push(point(((from + to) / 2) * windowMs, peakOf(load, 0, from, to)));
  }
  return points.join(' ');
}

/** The most points in a series' line: far more than the plot's 866 pixels across. */
const MAX_POINTS = 10_000;

/** The smallest of 1, 2, 5 times a power of ten that is >= value. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
  for (const k of [1, 2, 5, 10]) if (k * power >= value) return k * power;
  return 10 * power;
}
