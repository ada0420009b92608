import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/*
 * Issue 43: every Web API call the bot makes is checked against @slack/web-api's argument types
 * by compiling it. The compiler finds each call of a WebClient method in src/ (whatever the
 * client's variable is called); a call fits only if it is typed: no `apiCall` (whose arguments
 * are any object), no argument cast (`as never`, `as unknown as ...Arguments`, `as Parameters<...>`)
 * that would let anything through, and no compile error at the call. Slack methods the SDK has no
 * type for are listed below with the arguments type written after Slack's docs.
 */

const ROOT = dirname(fileURLToPath(new URL('../../package.json', import.meta.url)));

/** Methods @slack/web-api 8 has no type for, called through `apiCall` with a type of our own. */
const UNTYPED_BY_THE_SDK: Record<string, string> = {
  'functions.distributions.permissions.set': 'FunctionsDistributionsPermissionsSetArguments',
};

interface WebApiCall {
  method: string;
  where: string;
  problems: string[];
}

const fromWebApi = (declaration: ts.Declaration) =>
  declaration.getSourceFile().fileName.split(sep).join('/').includes('/node_modules/@slack/web-api/');

/** The casts in an argument, outside any function written in it (a callback's own code is its business). */
function castsIn(node: ts.Node, found: string[] = []): string[] {
  if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) found.push(node.getText());
  if (ts.isFunctionLike(node)) return found;
  node.forEachChild((child) => {
    castsIn(child, found);
  });
  return found;
}

/** `chat.postMessage` for `client.chat.postMessage(...)`: the names after the expression typed WebClient. */
function methodPath(checker: ts.TypeChecker, callee: ts.PropertyAccessExpression): string {
  const names: string[] = [callee.name.text];
  let receiver: ts.Expression = callee.expression;
  while (ts.isPropertyAccessExpression(receiver)) {
    const type = checker.getTypeAtLocation(receiver);
    if (type.getSymbol()?.getName() === 'WebClient') break;
    names.unshift(receiver.name.text);
    receiver = receiver.expression;
  }
  return names.join('.');
}

/** Every member name WebClient and its method groups declare (`postMessage`, `apiCall`, `filesUploadV2`, ...). */
function webClientMemberNames(program: ts.Program): Set<string> {
  const names = new Set<string>();
  const declaring = program
    .getSourceFiles()
    .filter((file) => /@slack\/web-api\/dist\/(WebClient|methods)\.d\.ts$/.test(file.fileName.split(sep).join('/')));
  if (declaring.length !== 2) throw new Error('@slack/web-api’s WebClient.d.ts and methods.d.ts were not loaded');
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertySignature(node) ||
        ts.isPropertyDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isMethodSignature(node)) &&
      ts.isIdentifier(node.name)
    )
      names.add(node.name.text);
    node.forEachChild(visit);
  };
  for (const file of declaring) visit(file);
  return names;
}

function webApiCalls(): { calls: WebApiCall[]; diagnostics: string[] } {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const sources = parsed.fileNames.filter((file) => relative(ROOT, file).split(sep)[0] === 'src');
  const program = ts.createProgram(sources, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  // Only a call named as some WebClient member can be one: the checker is asked about those alone.
  const members = webClientMemberNames(program);
  const calls: WebApiCall[] = [];
  const diagnostics: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (relative(ROOT, file.fileName).split(sep)[0] !== 'src') continue;
    const where = relative(ROOT, file.fileName);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        members.has(node.expression.name.text)
      ) {
        const symbol = checker.getSymbolAtLocation(node.expression.name);
        if (symbol?.getDeclarations()?.some(fromWebApi)) {
          const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          let method = methodPath(checker, node.expression);
          const problems: string[] = [];
          if (method === 'apiCall') {
            const [name, args] = node.arguments;
            const named = name && ts.isIdentifier(name) ? checker.getTypeAtLocation(name) : undefined;
            method = named?.isStringLiteral() ? named.value : `apiCall(${name?.getText()})`;
            const typed = UNTYPED_BY_THE_SDK[method];
            const argsType = args ? checker.typeToString(checker.getTypeAtLocation(args)) : 'nothing';
            if (!typed) problems.push(`apiCall for ${method}: call its typed method instead`);
            else if (argsType !== typed) problems.push(`${method}'s arguments are ${argsType}, not ${typed}`);
          }
          for (const arg of node.arguments) for (const cast of castsIn(arg)) problems.push(`cast: ${cast}`);
          calls.push({ method, where: `${where}:${line}`, problems });
        }
      }
      node.forEachChild(visit);
    };
    const before = calls.length;
    visit(file);
    // A file that makes calls compiles whole (the arguments' errors are among its own).
    if (calls.length > before)
      for (const diagnostic of program.getSemanticDiagnostics(file))
        diagnostics.push(`${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  }
  return { calls, diagnostics };
}

describe("every Web API call the bot makes, against @slack/web-api's argument types", () => {
  let found: ReturnType<typeof webApiCalls>;
  beforeAll(() => {
    found = webApiCalls();
  }, 60_000);

  it('finds the calls wherever they are, whatever the client is called', () => {
    const methods = new Set(found.calls.map((call) => call.method));
    // The check can only fail if it sees the calls: these are made from five different folders.
    expect([...methods]).toEqual(
      expect.arrayContaining([
        'auth.test',
        'chat.postMessage',
        'chat.startStream',
        'chat.appendStream',
        'chat.stopStream',
        'chat.unfurl',
        'entity.presentDetails',
        'functions.completeSuccess',
        'functions.distributions.permissions.set',
        'conversations.history',
        'views.publish',
        'filesUploadV2',
      ]),
    );
  });

  it('compiles each call with its arguments typed: no apiCall, no cast, no error', () => {
    expect(found.calls.filter((call) => call.problems.length > 0)).toEqual([]);
    expect(found.diagnostics).toEqual([]);
  });
});
