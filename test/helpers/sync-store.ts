import ts from 'typescript';

/** A store function that reads or writes the database without a promise, imported by a caller. */
export interface SyncStoreUse {
  file: string;
  line: number;
  name: string;
}

function isThenable(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isThenable);
  return type.getProperty('then') !== undefined;
}

/** Does `type` name the store's connection (the `Database` of src/db/open.ts) or a drizzle handle? */
function isConnection(type: ts.Type, isStore: (file: string) => boolean): boolean {
  const symbol = type.aliasSymbol ?? type.getSymbol();
  return (
    symbol !== undefined &&
    ['Database', 'Db'].includes(symbol.getName()) &&
    (symbol.declarations ?? []).some((d) => isStore(d.getSourceFile().fileName))
  );
}

/**
 * Every name a caller file imports from a store file that is a function taking the connection
 * and returning no promise: a caller that would block on, or hold open, a synchronous database.
 * Functions that take no connection (pure helpers, key builders) are not store functions.
 */
export function syncStoreUses(
  program: ts.Program,
  isCaller: (file: string) => boolean,
  isStore: (file: string) => boolean,
): SyncStoreUse[] {
  const checker = program.getTypeChecker();
  const found: SyncStoreUse[] = [];
  for (const source of program.getSourceFiles()) {
    if (!isCaller(source.fileName) || isStore(source.fileName)) continue;
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || statement.importClause?.isTypeOnly) continue;
      const bindings = statement.importClause?.namedBindings;
      if (!bindings || !ts.isNamedImports(bindings)) continue;
      for (const element of bindings.elements) {
        if (element.isTypeOnly) continue;
        const local = checker.getSymbolAtLocation(element.name);
        if (!local) continue;
        const target = local.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(local) : local;
        const declaration = target.declarations?.[0];
        if (!declaration || !isStore(declaration.getSourceFile().fileName)) continue;
        const signatures = checker.getTypeOfSymbolAtLocation(target, declaration).getCallSignatures();
        const blocking = signatures.some(
          (signature) =>
            signature.getParameters().some((p) => isConnection(checker.getTypeOfSymbol(p), isStore)) &&
            !isThenable(signature.getReturnType()),
        );
        if (!blocking) continue;
        const { line } = source.getLineAndCharacterOfPosition(element.getStart());
        found.push({ file: source.fileName, line: line + 1, name: target.getName() });
      }
    }
  }
  return found;
}
