/** The hub's logger port: where the hub reports what it does, and the two loggers it ships. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const consoleLogger: Logger = {
  info: (m) => console.log(`[switchboard] ${m}`),
  warn: (m) => console.warn(`[switchboard] ${m}`),
  error: (m) => console.error(`[switchboard] ${m}`),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
