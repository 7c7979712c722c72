/**
 * Sign-in for a hub with a JWT secret: paste a token, or open the link that
 * `switchboard token --link` prints (it hands the token over once). Says why
 * the last session ended (an expired or refused token).
 */
import { useState, type ReactNode } from "react";
import { isExpired, readClaims } from "../session.ts";

export function SignIn({ reason, onToken }: { reason?: string | undefined; onToken(token: string): void }): ReactNode {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    const token = text.trim();
    const claims = readClaims(token);
    if (!claims) return setProblem("That is not a JWT (three base64url parts separated by dots).");
    if (isExpired(claims)) return setProblem(`That token expired at ${new Date(claims.expiresAt ?? 0).toLocaleString()}.`);
    setProblem(null);
    onToken(token);
  };
  return (
    <main className="center-page">
      <div className="card narrow signin">
        <div className="brand brand-lg">
          <span className="brand-mark" aria-hidden="true" />
          Switchboard
        </div>
        <h1>Sign in</h1>
        {reason && (
          <p className="notice notice-warn" role="alert">
            {reason}
          </p>
        )}
        <p className="muted">
          This hub needs a token. Ask your admin for a sign-in link, or mint one where the hub runs:
        </p>
        <pre className="code-block">switchboard token --sub you --roles reviewer --link</pre>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label className="field">
            <span className="field-label">Token</span>
            <textarea className="mono" rows={4} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} autoComplete="off" />
          </label>
          {problem && (
            <p className="field-error" role="alert">
              {problem}
            </p>
          )}
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={text.trim() === ""}>
              Sign in
            </button>
          </div>
        </form>
        <p className="hint">The token stays in this tab only (sessionStorage) and is never put in the address bar.</p>
      </div>
    </main>
  );
}
