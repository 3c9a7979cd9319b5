/**
 * Adapter between code_guard and the code engine (plugins/engines/code). Layer 1 is the code
 * engine's syntax-tree analysis; this file only states the slice of its `Analysis` shape the guard
 * reads and which findings count as a layer-1 threat, so the guard does not depend on the engine's
 * internals (and a fake analysis can drive the guard in tests).
 */
export interface SyntaxFinding {
  rule_id: string;
  type: string;
  severity: 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';
  line: number;
  column: number;
  message: string;
}

export interface SyntaxAnalysis {
  parseOk: boolean;
  parseError?: { line: number; column: number; message: string };
  parser: string;
  findings: SyntaxFinding[];
  limitExceeded?: boolean;
}

/**
 * The spec's layer-1 categories, matched by the code engine's rule families at any severity:
 * dangerous calls (eval, exec, compile, __import__, also reached through aliases and namespace
 * lookups), process execution (subprocess.run, os.system, os.popen, …) and dangerous imports
 * (subprocess, importlib, ctypes). `rce` is exec of fetched content.
 */
const LAYER1_FAMILIES = /^(python|javascript|typescript)\.(dangerous_call|process|import|rce)\./;

/** A finding is a layer-1 threat when it is in the spec's categories or the engine itself rates it blocking. */
export function isLayer1Threat(f: SyntaxFinding): boolean {
  return LAYER1_FAMILIES.test(f.rule_id) || f.severity === 'CRITICAL' || f.severity === 'HIGH';
}

export function layer1Threats(a: SyntaxAnalysis): SyntaxFinding[] {
  return a.findings.filter(isLayer1Threat);
}
