/** What a results table is only meaningful with: the machine, the versions, the commit. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, totalmem, platform, release, arch } from "node:os";
import { join } from "node:path";

export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  os: string;
  node: string;
  /** "name version" of Switchboard and the peers. */
  packages: string[];
  /** Short commit and whether the tree had uncommitted changes. */
  commit: string;
}


function packageVersion(root: string, name: string): string {
  try {
    // Read the file directly: packages whose `exports` hide package.json fail require.resolve.
    const path = join(root, "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "not installed";
  }
}

function gitCommit(root: string): string {
  try {
    const run = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const head = run("rev-parse", "--short", "HEAD");
    return run("status", "--porcelain").length > 0 ? `${head} (with uncommitted changes)` : head;
  } catch {
    return "unknown";
  }
}

export function machineInfo(root: string, peers: readonly string[]): MachineInfo {
  const cpuList = cpus();
  const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string };
  return {
    cpu: cpuList[0]?.model.trim() ?? "unknown",
    cores: cpuList.length,
    ramGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
    packages: [`${own.name} ${own.version}`, ...peers.map((p) => `${p} ${packageVersion(root, p)}`)],
    commit: gitCommit(root),
  };
}
