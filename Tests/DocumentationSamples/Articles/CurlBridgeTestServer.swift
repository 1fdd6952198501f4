// The names CurlBridgeTestServer.md's samples assume.
import CurlBridgeTestServer

struct CurlBridgeTestServerSamples: Sendable {}
