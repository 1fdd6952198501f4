// CurlBridgeTelemetry builds only with the package trait `Telemetry`, which brings its dependencies:
// `.package(url: "…/CurlBridge", from: "…", traits: ["Telemetry"])` in an app's manifest, or
// `--traits Telemetry` (scripts/test.sh passes `--enable-all-traits`) when building this package.
#if !Telemetry
#error("CurlBridgeTelemetry needs the package trait Telemetry: add traits: [\"Telemetry\"] to the CurlBridge package dependency")
#endif
