// CurlBridgeTestServer builds only with the package trait `TestServer`, which brings its dependencies:
// `.package(url: "…/CurlBridge", from: "…", traits: ["TestServer"])` in an app's manifest, or
// `--traits TestServer` (scripts/test.sh passes `--enable-all-traits`) when building this package.
#if !TestServer
#error("CurlBridgeTestServer needs the package trait TestServer: add traits: [\"TestServer\"] to the CurlBridge package dependency")
#endif
