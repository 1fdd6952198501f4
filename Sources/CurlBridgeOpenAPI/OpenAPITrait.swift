// CurlBridgeOpenAPI builds only with the package trait `OpenAPI`, which brings its dependencies:
// `.package(url: "…/CurlBridge", from: "…", traits: ["OpenAPI"])` in an app's manifest, or
// `--traits OpenAPI` (scripts/test.sh passes `--enable-all-traits`) when building this package.
#if !OpenAPI
#error("CurlBridgeOpenAPI needs the package trait OpenAPI: add traits: [\"OpenAPI\"] to the CurlBridge package dependency")
#endif
