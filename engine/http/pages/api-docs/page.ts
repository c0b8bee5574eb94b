/**
 * The /docs page: Swagger UI's standalone layout with a switcher between the gateway's two OpenAPI
 * documents. No inline script or style (the page's Content-Security-Policy allows only its own origin):
 * the viewer's settings are a script of their own, /docs/viewer.js.
 */

/** The documents the switcher offers, first shown first; `?urls.primaryName=v2` opens another. */
export const DOCUMENTS = [
  { name: 'v1', url: '/v1/openapi.json' },
  { name: 'v2', url: '/v2/openapi.json' },
] as const;

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Integration gateway API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/index.css">
<link rel="stylesheet" href="/docs/viewer.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<noscript><p>The API pages need JavaScript. The documents themselves: ${DOCUMENTS.map((d) => `<a href="${d.url}">${d.url}</a>`).join(', ')}.</p></noscript>
<main id="swagger-ui"></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/viewer.js"></script>
</body>
</html>
`;

/**
 * Swagger UI's settings. validatorUrl null: otherwise it sends each document to validator.swagger.io for a
 * badge (a request to another origin, refused by the page's policy). No "Try it out" against another host:
 * requests leave for the document's server URL, which the policy allows only when it is this origin.
 * persistAuthorization: the key given on one document is kept (in this browser's localStorage, as Swagger UI
 * does) when the reader switches to the other, whose schemes have the same names, and across a reload.
 * Swagger UI's servers <select> sits in an empty <label>: it gets an accessible name, as the switcher has.
 */
export const VIEWER_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(DOCUMENTS)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    // Swagger's logo is an SVG with an inline <style>, which the policy refuses (a console error): no logo.
    plugins: [SwaggerUIBundle.plugins.DownloadUrl, function () { return { components: { Logo: function () { return null; } } }; }],
    layout: 'StandaloneLayout',
  });
  var root = document.getElementById('swagger-ui');
  function labelServers() {
    var select = root.querySelector('select#servers');
    if (select && !select.hasAttribute('aria-label')) select.setAttribute('aria-label', 'Server');
  }
  new MutationObserver(labelServers).observe(root, { childList: true, subtree: true });
});
`;

/** Keeps long paths and code inside a phone's width: they wrap instead of widening the page. */
export const VIEWER_STYLE = `.swagger-ui .opblock .opblock-summary-path { word-break: break-all; }
.swagger-ui .wrapper { box-sizing: border-box; }
`;
