/** Stands in for `ws` in the browser bundle: the SDK only imports it in Node. */
export default class NoWebSocket {
  constructor() {
    throw new Error("ws is not available in the browser; the platform WebSocket is used instead");
  }
}
