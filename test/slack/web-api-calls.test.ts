import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/*
 * Issue 43: every Web API call the bot makes is checked against @slack/web-api's argument types
 * by compiling it. Every call whose resolved signature @slack/web-api declares is a Web API call,
 * however it is reached (`client.chat.postMessage(...)`, `client.chat['postMessage'](...)`, a
 * destructured method). A call fits only if it is typed: no `apiCall` (whose arguments are any
 * object), no argument typed `any` (nor an object literal with an `any` property or spread), no
 * cast in an argument or in the initializer of a variable passed as one (`as never`,
 * `as unknown as ...Arguments`), no property in such an initializer that the parameter's type
 * lacks (a variable escapes TypeScript's excess-property check), and no compile error at the
 * call. Slack methods the SDK has no type for are listed below with the arguments type written
 * after Slack's docs. The check is shown to catch each of these on source written here.
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

/** `chat.postMessage` for `client.chat.postMessage(...)` or `client.chat['postMessage'](...)`: the names after the expression typed WebClient. */
function methodPath(checker: ts.TypeChecker, callee: ts.Expression): string {
  const nameOf = (node: ts.PropertyAccessExpression | ts.ElementAccessExpression) =>
    ts.isPropertyAccessExpression(node)
      ? node.name.text
      : node.argumentExpression.getText().replace(/^['"`]|['"`]$/g, '');
  if (!ts.isPropertyAccessExpression(callee) && !ts.isElementAccessExpression(callee)) return callee.getText();
  const names: string[] = [nameOf(callee)];
  let receiver: ts.Expression = callee.expression;
  while (ts.isPropertyAccessExpression(receiver) || ts.isElementAccessExpression(receiver)) {
    const type = checker.getTypeAtLocation(receiver);
    if (type.getSymbol()?.getName() === 'WebClient') break;
    names.unshift(nameOf(receiver));
    receiver = receiver.expression;
  }
  return names.join('.');
}

/** Every property name a type has, through its unions and intersections (an arguments type is often both). */
function propertyNames(checker: ts.TypeChecker, type: ts.Type, names = new Set<string>()): Set<string> {
  if (type.isUnionOrIntersection()) for (const part of type.types) propertyNames(checker, part, names);
  else for (const property of checker.getPropertiesOfType(checker.getApparentType(type))) names.add(property.name);
  return names;
}

const isAny = (type: ts.Type) => (type.flags & ts.TypeFlags.Any) !== 0;

/** What is wrong with one argument of a Web API call: `any`, a cast, a property its parameter's type lacks. */
function argumentProblems(checker: ts.TypeChecker, arg: ts.Expression, parameter: ts.Type | undefined): string[] {
  const problems = castsIn(arg).map((cast) => `cast: ${cast}`);
  if (isAny(checker.getTypeAtLocation(arg))) problems.push(`argument typed any: ${arg.getText()}`);
  // A variable's initializer is where its casts and extra properties are: followed as far as it is declared.
  let literal: ts.Expression = arg;
  if (ts.isIdentifier(arg)) {
    const declaration = checker.getSymbolAtLocation(arg)?.valueDeclaration;
    const initializer = declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
    if (initializer) {
      for (const cast of castsIn(initializer)) problems.push(`cast in ${arg.text}'s initializer: ${cast}`);
      literal = initializer;
      // A variable with a type annotation was checked against it where it was made.
      if (declaration && ts.isVariableDeclaration(declaration) && declaration.type) literal = arg;
    }
  }
  while (ts.isParenthesizedExpression(literal) || ts.isSatisfiesExpression(literal)) literal = literal.expression;
  if (ts.isObjectLiteralExpression(literal)) {
    const known = parameter && !isAny(parameter) ? propertyNames(checker, parameter) : undefined;
    for (const property of literal.properties) {
      if (ts.isSpreadAssignment(property)) {
        if (isAny(checker.getTypeAtLocation(property.expression)))
          problems.push(`spread of any: ${property.getText()}`);
        continue;
      }
      const name = property.name && !ts.isComputedPropertyName(property.name) ? property.name.getText() : undefined;
      if (ts.isPropertyAssignment(property) && isAny(checker.getTypeAtLocation(property.initializer)))
        problems.push(`property typed any: ${property.getText()}`);
      if (literal !== arg && name && known && !known.has(name))
        problems.push(`property ${name} is not in the arguments' type`);
    }
  }
  return problems;
}

/** Each call in `files` whose signature @slack/web-api declares, with what is wrong with it. */
function webApiCallsIn(program: ts.Program, files: (file: ts.SourceFile) => boolean, root: string) {
  const checker = program.getTypeChecker();
  const calls: WebApiCall[] = [];
  const diagnostics: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (!files(file)) continue;
    const where = relative(root, file.fileName);
    const visit = (node: ts.Node): void => {
      const declaration = ts.isCallExpression(node) ? checker.getResolvedSignature(node)?.getDeclaration() : undefined;
      if (ts.isCallExpression(node) && declaration && fromWebApi(declaration)) {
        const signature = checker.getResolvedSignature(node);
        const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        let method = methodPath(checker, node.expression);
        const problems: string[] = [];
        if (method === 'apiCall' || method.endsWith('.apiCall')) {
          const [name, args] = node.arguments;
          const named = name && ts.isIdentifier(name) ? checker.getTypeAtLocation(name) : undefined;
          method = named?.isStringLiteral() ? named.value : `apiCall(${name?.getText()})`;
          const typed = UNTYPED_BY_THE_SDK[method];
          const argsType = args ? checker.typeToString(checker.getTypeAtLocation(args)) : 'nothing';
          if (!typed) problems.push(`apiCall for ${method}: call its typed method instead`);
          else if (argsType !== typed) problems.push(`${method}'s arguments are ${argsType}, not ${typed}`);
        }
        node.arguments.forEach((arg, index) => {
          const parameter = signature?.parameters[index];
          const type = parameter ? checker.getTypeOfSymbolAtLocation(parameter, node) : undefined;
          problems.push(...argumentProblems(checker, arg, type));
        });
        calls.push({ method, where: `${where}:${line}`, problems });
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

function compilerOptions(): { options: ts.CompilerOptions; fileNames: string[] } {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { options: { ...parsed.options, noEmit: true }, fileNames: parsed.fileNames };
}

const inSrc = (file: ts.SourceFile) => relative(ROOT, file.fileName).split(sep)[0] === 'src';

function webApiCalls(): { calls: WebApiCall[]; diagnostics: string[] } {
  const { options, fileNames } = compilerOptions();
  const program = ts.createProgram(
    fileNames.filter((file) => relative(ROOT, file).split(sep)[0] === 'src'),
    options,
  );
  return webApiCallsIn(program, inSrc, ROOT);
}

/** The check run over source written here, as files of a small program beside src/ (read from memory, never written). */
function webApiCallsOf(cases: Record<string, string>): { calls: WebApiCall[]; diagnostics: string[] } {
  const { options } = compilerOptions();
  const dir = join(ROOT, 'test', 'slack', '__web-api-call-cases__');
  const files = new Map(Object.entries(cases).map(([name, text]) => [join(dir, `${name}.ts`), text]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const text = files.get(name);
    return text !== undefined ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, ...rest);
  };
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return webApiCallsIn(program, (file) => files.has(file.fileName), dir);
}

describe("every Web API call the bot makes, against @slack/web-api's argument types", () => {
  let found: ReturnType<typeof webApiCalls>;
  // Compiling src/ took 23-76 s on a loaded machine.
  beforeAll(() => {
    found = webApiCalls();
  }, 240_000);

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

describe('the conformance check, on calls that a plain compile lets through', () => {
  const HEAD = "import { WebClient } from '@slack/web-api';\nconst client = new WebClient('xoxb');\n";
  const CASES: Record<string, string> = {
    typed: `${HEAD}void client.chat.postMessage({ channel: 'C1', text: 'hi' });`,
    variable: `${HEAD}const args = { channel: 'C1', text: 'hi', colour: 'red' };\nvoid client.chat.postMessage(args);`,
    anyArgs: `${HEAD}const args: any = { channel: 'C1' };\nvoid client.chat.postMessage(args);`,
    spreadAny: `${HEAD}const extra: any = {};\nvoid client.chat.postMessage({ channel: 'C1', text: 'hi', ...extra });`,
    elementAccess: `${HEAD}const args: any = {};\nvoid client.chat['postMessage'](args);`,
    destructured: `${HEAD}const { postMessage } = client.chat;\nconst args: any = {};\nvoid postMessage(args);`,
    castInInitializer: `${HEAD}import type { ChatStartStreamArguments } from '@slack/web-api';\nconst a = { channel: 'C1' } as unknown as ChatStartStreamArguments;\nvoid client.chat.startStream(a);`,
  };
  let cases: ReturnType<typeof webApiCallsOf>;
  beforeAll(() => {
    cases = webApiCallsOf(CASES);
  }, 240_000);
  const problemsIn = (name: string) =>
    cases.calls.filter((call) => call.where.startsWith(`${name}.ts:`)).flatMap((call) => call.problems);

  it('finds each case and passes the typed one', () => {
    for (const name of Object.keys(CASES))
      expect(
        cases.calls.some((call) => call.where.startsWith(`${name}.ts:`)),
        name,
      ).toBe(true);
    expect(problemsIn('typed')).toEqual([]);
    // None of the others is a compile error: a plain compile would let them all through.
    expect(cases.diagnostics).toEqual([]);
  });

  it('rejects a property the arguments type lacks, in a variable passed as the arguments', () => {
    expect(problemsIn('variable')).toEqual(["property colour is not in the arguments' type"]);
  });

  it('rejects arguments typed any, a spread of any, and calls through element access or a destructured method', () => {
    expect(problemsIn('anyArgs')).toEqual(['argument typed any: args']);
    expect(problemsIn('spreadAny').join()).toMatch(/any/);
    expect(problemsIn('elementAccess')).toEqual(['argument typed any: args']);
    expect(cases.calls.find((call) => call.where.startsWith('elementAccess.ts:'))?.method).toBe('chat.postMessage');
    expect(problemsIn('destructured')).toEqual(['argument typed any: args']);
  });

  it('rejects a cast in the initializer of a variable passed as the arguments', () => {
    expect(problemsIn('castInInitializer')).toContain(
      "cast in a's initializer: { channel: 'C1' } as unknown as ChatStartStreamArguments",
    );
  });
});
