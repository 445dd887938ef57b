import ts from 'typescript';

/** A promise nobody waits for: where it is and the code that makes it. */
export interface FloatingPromise {
  file: string;
  line: number;
  text: string;
  why: 'not awaited' | 'returned to a caller that ignores it' | 'tested, not awaited';
}

/** The program of a tsconfig, for checking its files with the types tsc sees. */
export function programOf(tsconfigPath: string, include: (fileName: string) => boolean = () => true): ts.Program {
  const read = ts.readConfigFile(tsconfigPath, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, tsconfigPath.replace(/[^/]+$/, ''));
  return ts.createProgram({
    rootNames: parsed.fileNames.filter(include),
    options: { ...parsed.options, noEmit: true },
  });
}

function isThenable(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some((part) => isThenable(checker, part));
  const then = type.getProperty('then');
  if (!then) return false;
  const thenType = checker.getTypeOfSymbol(then);
  return thenType.getCallSignatures().length > 0;
}

/** Thenable whatever it holds: a `Promise | undefined` may rightly be tested for presence. */
function isAlwaysThenable(checker: ts.TypeChecker, type: ts.Type): boolean {
  return type.isUnion() ? type.types.every((part) => isThenable(checker, part)) : isThenable(checker, type);
}

function isVoid(type: ts.Type): boolean {
  return (type.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) !== 0;
}

/** `p.catch(f)` and `p.then(f, g)` handle the rejection: the promise they return may float. */
function handlesRejection(expression: ts.Expression): boolean {
  if (!ts.isCallExpression(expression) || !ts.isPropertyAccessExpression(expression.expression)) return false;
  const method = expression.expression.name.text;
  return (
    (method === 'catch' && expression.arguments.length >= 1) || (method === 'then' && expression.arguments.length >= 2)
  );
}

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** The operands whose truth or identity the node tests: a promise there is always defined and truthy. */
function testedOperands(node: ts.Node): ts.Expression[] {
  if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) return [node.left, node.right];
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) return [node.operand];
  if (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isConditionalExpression(node))
    return [ts.isConditionalExpression(node) ? node.condition : node.expression];
  return [];
}

/**
 * Every promise under the given files that is neither awaited, returned, `void`-ed nor given a
 * rejection handler: an expression statement whose value is thenable, and a function returning a
 * thenable where the caller's type says it returns nothing (an event handler, a `forEach`
 * callback, a timer), whose promise nobody waits for. Also a promise compared or tested where its
 * value was meant (`read() === undefined`, `if (read())`): the test is decided before it settles.
 */
export function floatingPromises(program: ts.Program, include: (fileName: string) => boolean): FloatingPromise[] {
  const checker = program.getTypeChecker();
  const found: FloatingPromise[] = [];
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || !include(source.fileName)) continue;
    const report = (node: ts.Node, why: FloatingPromise['why']) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      const text = node.getText(source).split('\n')[0] ?? '';
      found.push({ file: source.fileName, line: line + 1, text: text.slice(0, 120), why });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isExpressionStatement(node)) {
        let expression = node.expression;
        while (ts.isParenthesizedExpression(expression)) expression = expression.expression;
        const stored =
          ts.isBinaryExpression(expression) &&
          expression.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
          expression.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
        const handled =
          stored || ts.isAwaitExpression(expression) || ts.isVoidExpression(expression) || handlesRejection(expression);
        if (!handled && isThenable(checker, checker.getTypeAtLocation(expression))) report(node, 'not awaited');
      }
      for (const operand of testedOperands(node))
        if (isAlwaysThenable(checker, checker.getTypeAtLocation(operand))) report(operand, 'tested, not awaited');
      if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
        const expected = checker.getContextualType(node)?.getNonNullableType().getCallSignatures() ?? [];
        if (expected.length > 0 && expected.every((signature) => isVoid(checker.getReturnTypeOfSignature(signature)))) {
          const own = checker.getSignatureFromDeclaration(node);
          const returned = own ? checker.getReturnTypeOfSignature(own) : undefined;
          const concise = ts.isArrowFunction(node) && !ts.isBlock(node.body) ? node.body : undefined;
          const handled = concise !== undefined && (ts.isVoidExpression(concise) || handlesRejection(concise));
          if (returned && !handled && isThenable(checker, returned))
            report(node, 'returned to a caller that ignores it');
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
