import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';

// The site imports the library from its own source, through Vite: the live herd page runs `herdless/simulate` itself,
// never a copy of it.
const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

const docs = fileURLToPath(new URL('..', import.meta.url));

// Served from a subpath when HERDLESS_DOCS_BASE is set (GitHub Pages: /herdless/); `/` otherwise.
const base = process.env.HERDLESS_DOCS_BASE ?? '/';

export default defineConfig({
  // The evidence beside the pages (matrix.json, outage.txt, the SVGs), which pages link to, is served as it is.
  buildEnd({ outDir }) {
    for (const name of readdirSync(docs)) {
      if (/\.(json|txt|svg)$/.test(name)) copyFileSync(join(docs, name), join(outDir, name));
    }
  },
  title: 'herdless',
  description: 'Retries that never become the outage.',
  base,
  // The icon (docs/public/favicon.svg), linked from every page: without it a browser asks for /favicon.ico, a 404.
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: `${base}favicon.svg` }]],
  cleanUrls: false,
  lastUpdated: false,
  // The evidence files beside the pages (outage.txt, ...) are not pages.
  srcExclude: ['**/README.md'],
  vite: {
    resolve: {
      alias: [
        { find: /^herdless\/simulate$/, replacement: src('simulate/index.ts') },
        { find: /^herdless$/, replacement: src('index.ts') },
      ],
    },
    // No network at build time, and nothing to pre-bundle from a CDN.
    server: { host: '127.0.0.1' },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'See the herd, live', link: '/herd' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Getting started', link: '/guide/getting-started' },
          { text: 'The policy', link: '/guide/policy' },
          { text: 'When it gives up', link: '/guide/giving-up' },
          { text: 'Which errors are retried', link: '/guide/errors' },
          { text: 'Retry-After and rate limits', link: '/guide/retry-after' },
          { text: 'HTTP', link: '/guide/http' },
          { text: 'Protecting the dependency', link: '/guide/protecting' },
          { text: 'Hedging slow attempts', link: '/guide/hedging' },
          { text: 'Protection: the single runs', link: '/protection' },
          { text: 'Testing your code', link: '/guide/testing' },
          { text: 'Test your retries under a herd', link: '/testing-herd' },
          { text: 'See retries in production (OpenTelemetry)', link: '/otel' },
          { text: 'Coming from other libraries', link: '/guide/migrating' },
          { text: 'The CLI: simulate and audit', link: '/guide/cli' },
          { text: 'Which jitter to pick', link: '/guide/jitter' },
          { text: 'FAQ', link: '/guide/faq' },
        ],
      },
      {
        text: 'The herd',
        items: [
          { text: 'See the herd, live', link: '/herd' },
          { text: 'The simulator and the demo', link: '/guide/simulate' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'API (from the TSDoc)', link: '/api/' },
          { text: 'The measurements', link: 'https://github.com/herdless/herdless/blob/HEAD/bench/README.md' },
        ],
      },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
});
