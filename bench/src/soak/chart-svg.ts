/** One panel of the chart: a series over time (x in minutes). */
export interface ChartSeries {
  title: string;
  unit: string;
  points: ReadonlyArray<readonly [number, number]>;
  color?: string;
}

export interface ChartOptions {
  title: string;
  subtitle?: string;
  series: readonly ChartSeries[];
  width?: number;
  panelHeight?: number;
}

const LEFT = 80;
const RIGHT = 30;
const HEADER = 56;
const PANEL_TITLE = 22;
const X_LABELS = 26;
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b'];

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const num = (n: number) => {
  const a = Math.abs(n);
  if (a >= 1000) return Math.round(n).toLocaleString('en-US');
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  return n.toFixed(2);
};

/** A tick step in minutes giving at most about ten ticks over `span`. */
export function timeStep(span: number): number {
  for (const step of [0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120]) {
    if (span / step <= 10) return step;
  }
  return Math.ceil(span / 10 / 60) * 60;
}

/**
 * A self-contained SVG of stacked panels sharing one time axis, each with its
 * own y range labelled by the series' min and max (the range is not forced to
 * include zero, so a small drift stays visible).
 */
export function chartSvg(o: ChartOptions): string {
  const width = o.width ?? 1100;
  const panelH = o.panelHeight ?? 170;
  const plotW = width - LEFT - RIGHT;
  const plotH = panelH - PANEL_TITLE - X_LABELS;
  const height = HEADER + panelH * o.series.length + 10;
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0]));
  const x0 = 0;
  const x1 = Math.max(x0 + 1 / 60, ...xs);
  const sx = (x: number) => LEFT + ((x - x0) / (x1 - x0)) * plotW;
  const step = timeStep(x1 - x0);
  const ticks: number[] = [];
  for (let i = 0; i * step <= x1 - x0 + 1e-9; i++) ticks.push(x0 + i * step);

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(o.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${LEFT}" y="22" font-size="16" font-weight="bold">${esc(o.title)}</text>`,
  ];
  if (o.subtitle) out.push(`<text x="${LEFT}" y="42" fill="#555">${esc(o.subtitle)}</text>`);

  o.series.forEach((s, i) => {
    const top = HEADER + i * panelH + PANEL_TITLE;
    const bottom = top + plotH;
    const ys = s.points.map((p) => p[1]).filter(Number.isFinite);
    const min = ys.length ? Math.min(...ys) : 0;
    const max = ys.length ? Math.max(...ys) : 0;
    // A flat series gets a band around it so its line sits mid-panel.
    const pad = max > min ? (max - min) * 0.08 : Math.max(Math.abs(max) * 0.05, 1);
    const lo = min - pad;
    const hi = max + pad;
    const sy = (y: number) => bottom - ((y - lo) / (hi - lo)) * plotH;
    const color = s.color ?? PALETTE[i % PALETTE.length];
    const last = ys.at(-1);
    out.push(
      `<g class="panel">`,
      `<text x="${LEFT}" y="${top - 6}" font-weight="bold">${esc(s.title)} (${esc(s.unit)})${last === undefined ? '' : `<tspan dx="10" font-weight="normal" fill="#555">last ${esc(num(last))}</tspan>`}</text>`,
      `<rect x="${LEFT}" y="${top}" width="${plotW}" height="${plotH}" fill="#fafafa" stroke="#999"/>`,
    );
    for (const t of ticks) {
      const x = sx(t).toFixed(1);
      out.push(
        `<line x1="${x}" y1="${top}" x2="${x}" y2="${bottom}" stroke="#e4e4e4"/>`,
        `<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 4}" stroke="#999"/>`,
        `<text x="${x}" y="${bottom + 16}" text-anchor="middle" fill="#333">${String(Number(t.toFixed(2)))}</text>`,
      );
    }
    out.push(
      `<text x="${LEFT - 7}" y="${bottom + 16}" text-anchor="end" fill="#777">t (min)</text>`,
    );
    if (ys.length) {
      const marks =
        max > min
          ? ([
              [max, 'max'],
              [min, 'min'],
            ] as const)
          : ([[max, 'all']] as const);
      for (const [v, label] of marks) {
        const y = sy(v).toFixed(1);
        out.push(
          `<line x1="${LEFT - 4}" y1="${y}" x2="${LEFT}" y2="${y}" stroke="#999"/>`,
          `<text x="${LEFT - 7}" y="${y}" dy="4" text-anchor="end" fill="#333">${label} ${esc(num(v))}</text>`,
        );
      }
      const pts = s.points
        .filter((p) => Number.isFinite(p[1]))
        .map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`)
        .join(' ');
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="1.5" stroke-linejoin="round" points="${pts}"/>`,
      );
    } else {
      out.push(
        `<text x="${LEFT + plotW / 2}" y="${top + plotH / 2}" text-anchor="middle" fill="#999">no data</text>`,
      );
    }
    out.push('</g>');
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
