// ReduceLab's page runs the CPU model and the measurement service on Web Workers that share the
// WebAssembly memory (SharedArrayBuffer), which browsers allow only to a cross-origin isolated page:
// one served with the headers Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp. A server that sends them needs nothing of this file. On
// one that does not (a plain folder on GitHub Pages, python3 -m http.server), index.html installs this
// service worker, which adds the two headers to the folder's own responses, and loads the page again.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(fetch(request).then((response) => {
    if (response.status === 0 || new URL(request.url).origin !== self.location.origin) return response;
    const headers = new Headers(response.headers);
    headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
    headers.set('Cross-Origin-Resource-Policy', 'same-origin');
    return new Response(response.body, {status: response.status, statusText: response.statusText, headers});
  }));
});
