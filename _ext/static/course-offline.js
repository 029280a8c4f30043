/* A page the reader has opened reads the same offline: its figures draw and its images show
 * after the network has gone (a phone in a tunnel, a laptop on a plane).
 *
 * A page loads its figures' script and data, and the images below the screen, only as the
 * reader comes near them. So once the reader has started reading (the first touch, key or
 * wheel turn), or the page has been open for WAIT_MS, this script registers the site's service
 * worker (course-offline-worker.js, at the site's root), which gives a kept copy when the
 * network fails, and keeps in its cache the page itself, all it has loaded, and all it would
 * load later, and its icon. Then <html data-offline="kept">.
 *
 * Nothing is done where the browser has no service workers (a page opened from a file), nor
 * when the reader has asked the browser to save data.
 */
(function () {
  'use strict';

  var CACHE = 'course-offline';  // course-offline-worker.js reads it
  var WAIT_MS = 8000;  // after the load event; long after a page has settled
  var MOVES = ['pointerdown', 'touchstart', 'keydown', 'wheel'];
  var script = document.currentScript;
  var saveData = navigator.connection && navigator.connection.saveData;
  if (!('serviceWorker' in navigator) || !window.caches || saveData) { return; }
  var workerUrl = new URL('../course-offline-worker.js', script.src);  // script.src: <root>/_static/
  var started = false;

  // What the page asks for only when the reader comes near it, resolved as its loader does.
  function later() {
    var urls = [];
    document.querySelectorAll('script[data-plotly]').forEach(function (tag) {  // course-figures.js
      urls.push(new URL(tag.dataset.plotly, tag.src).href);
    });
    document.querySelectorAll('script.course-plot-spec[data-src]').forEach(function (tag) {  // a figure's data
      urls.push(new URL(tag.dataset.src, location.href).href);
    });
    document.querySelectorAll('script[data-scripts]').forEach(function (tag) {  // course-first-move.js
      tag.dataset.scripts.split(' ').filter(Boolean).forEach(function (source) {
        urls.push(new URL(source, location.href).href);
      });
    });
    document.querySelectorAll('link[rel~="icon"]').forEach(function (link) {  // the browser asks for it itself
      urls.push(link.href);
    });
    return urls;
  }

  // The images below the screen, each in the drawing the browser picks for this screen.
  function images() {
    return Promise.all([].map.call(document.querySelectorAll('article img'), function (image) {
      image.loading = 'eager';
      if (image.complete && image.naturalWidth) { return image.currentSrc; }
      return new Promise(function (resolve) {
        image.addEventListener('load', function () { resolve(image.currentSrc); }, {once: true});
        image.addEventListener('error', function () { resolve(null); }, {once: true});
      });
    }));
  }

  function controlling() {
    if (navigator.serviceWorker.controller) { return Promise.resolve(); }
    return new Promise(function (resolve) {
      navigator.serviceWorker.addEventListener('controllerchange', resolve, {once: true});
    });
  }

  function keep(cache, urls) {
    var sameSite = urls.filter(function (url, index) {
      return url && new URL(url).origin === location.origin && urls.indexOf(url) === index;
    });
    return Promise.all(sameSite.map(function (url) {
      return fetch(url, {priority: 'low'}).then(function (response) {
        if (!response.ok) { throw new Error(url + ': ' + response.status); }
        return cache.put(url, response);
      });
    }));
  }

  function start() {
    if (started) { return; }
    started = true;
    MOVES.forEach(function (name) { document.removeEventListener(name, start, true); });
    navigator.serviceWorker.register(workerUrl).then(controlling).then(function () {
      return Promise.all([caches.open(CACHE), images()]);
    }).then(function (opened) {
      var loaded = performance.getEntriesByType('resource').map(function (entry) { return entry.name; });
      var page = location.href.split('#')[0];
      return keep(opened[0], [page].concat(loaded, later(), opened[1]));
    }).then(function () {
      document.documentElement.dataset.offline = 'kept';
    }).catch(function () {
      // No worker (a browser that blocks them) or a failed request: the page reads online
      // as before, and the next visit tries again.
    });
  }

  // A figure drawn twice (page_images.py: a <picture> with a narrow drawing for a phone and
  // the wide one for other screens) is kept in the drawing this screen showed. A phone turned
  // offline asks for the other drawing, which it never loaded, or a page opened again offline
  // on a turned phone: when that drawing fails, show the kept one instead (once). Each
  // drawing is offered at two densities (srcset): the narrow one is the source's.
  function offered(srcset) {
    return srcset.split(',').map(function (candidate) {
      return new URL(candidate.trim().split(/\s+/)[0], document.baseURI).href;
    });
  }
  function showKeptDrawing(image) {
    var source = image.parentElement.querySelector('source[media]');
    if (!source || image.dataset.offlineDrawing) { return; }
    image.dataset.offlineDrawing = 'kept';
    var failedNarrow = offered(source.srcset).indexOf(image.currentSrc) >= 0;
    source.media = failedNarrow ? 'not all' : 'all';
  }
  document.querySelectorAll('article picture img').forEach(function (image) {  // failed already
    if (image.complete && !image.naturalWidth && image.currentSrc) { showKeptDrawing(image); }
  });
  document.addEventListener('error', function (event) {  // a drawing that fails as the page opens
    var image = event.target;
    if (image.parentElement && image.parentElement.tagName === 'PICTURE') { showKeptDrawing(image); }
  }, true);
  var narrowSource = document.querySelector('article picture source[media]');
  if (narrowSource) {  // a screen turned (its drawing changes without an error event)
    window.matchMedia(narrowSource.media).addEventListener('change', function () {
      // Only on a kept page (all its images loaded): before that, no drawing was kept to fall
      // back on, and there is no need to decode every image at each turn.
      if (document.documentElement.dataset.offline !== 'kept') { return; }
      setTimeout(function () {
        document.querySelectorAll('article picture img').forEach(function (image) {
          image.decode().catch(function () { showKeptDrawing(image); });
        });
      });
    });
  }

  MOVES.forEach(function (name) { document.addEventListener(name, start, {capture: true, passive: true}); });
  function wait() { setTimeout(start, WAIT_MS); }
  window.addEventListener('load', wait);  // deferred: the page has not loaded yet
})();
