/* The course's service worker: when the network does not answer, the answer a page kept.
 *
 * Pages keep themselves (course-offline.js): once the reader has started reading, a page puts
 * itself and everything it loads, now or later, into the cache named CACHE. This worker asks
 * the network first, so a reader online always gets the site as its server has it now, and
 * only when that fails gives the copy from the cache.
 */
'use strict';

var CACHE = 'course-offline';  // course-offline.js writes it

self.addEventListener('install', function () { self.skipWaiting(); });

// Answer for the open pages at once: the page that registered this worker may lose the
// network before the reader opens another. With navigation preload the browser asks for a
// page while it starts this worker: the request does not wait for the worker to start.
self.addEventListener('activate', function (event) {
  var preload = self.registration.navigationPreload;
  event.waitUntil(Promise.resolve(preload && preload.enable()).then(function () {
    return self.clients.claim();
  }));
});

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) { return; }
  var network = Promise.resolve(event.preloadResponse).then(function (preloaded) {
    return preloaded || fetch(request);
  });
  event.respondWith(network.catch(function (offline) {
    // ignoreVary: the page a script kept and the page the address bar asks for are one page.
    return caches.open(CACHE).then(function (cache) {
      return cache.match(request, {ignoreVary: true});
    }).then(function (kept) {
      if (kept) { return kept; }
      throw offline;
    });
  }));
});
