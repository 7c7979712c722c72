/**
 * A collapsible JSON tree: objects and arrays as native <details> (keyboard
 * and screen-reader friendly without extra code), leaves coloured by type.
 */
import type { ReactNode } from "react";
import { isRecord } from "../../../../hub/protocol/index.ts";


function Leaf({ value }: { value: unknown }): ReactNode {
  if (value === null) return <span className="j-null">null</span>;
  switch (typeof value) {
    case "string":
      return <span className="j-str">{JSON.stringify(value)}</span>;
    case "number":
      return <span className="j-num">{String(value)}</span>;
    case "boolean":
      return <span className="j-bool">{String(value)}</span>;
    default:
      return <span className="j-other">{JSON.stringify(value) ?? String(value)}</span>;
  }
}

function preview(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value);
    return `{ ${keys.slice(0, 4).join(", ")}${keys.length > 4 ? ", …" : ""} }`;
  }
  return "";
}

function Node({ name, value, depth, openDepth }: { name: string | null; value: unknown; depth: number; openDepth: number }): ReactNode {
  const label = name === null ? null : <span className="j-key">{name}</span>;
  if (!Array.isArray(value) && !isRecord(value)) {
    return (
      <div className="j-row">
        {label}
        {label && <span className="j-colon">: </span>}
        <Leaf value={value} />
      </div>
    );
  }
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (entries.length === 0) {
    return (
      <div className="j-row">
        {label}
        {label && <span className="j-colon">: </span>}
        <span className="j-other">{Array.isArray(value) ? "[]" : "{}"}</span>
      </div>
    );
  }
  return (
    <details className="j-node" open={depth < openDepth}>
      <summary>
        {label ?? <span className="j-key">{Array.isArray(value) ? "array" : "object"}</span>}
        <span className="j-preview"> {preview(value)}</span>
      </summary>
      <div className="j-children">
        {entries.map(([k, v]) => (
          <Node key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
        ))}
      </div>
    </details>
  );
}

export function JsonTree({ value, label, openDepth = 2 }: { value: unknown; label?: string; openDepth?: number }): ReactNode {
  return (
    <div className="json-tree" role="group" aria-label={label ?? "JSON"}>
      <Node name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}
