/** What the HTTP routes need from the server that hosts them (shutdown bookkeeping). */
export interface AppHooks {
  /** Open SSE streams register here so shutdown can end them. */
  trackStream(end: () => void): () => void;
  /** The built web app served at `/` (client/web/dist), or null to serve none. */
  webRoot: string | null;
}
