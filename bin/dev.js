#!/usr/bin/env node
// Runs the CLI from src/ without a build (tsx, registered below, compiles on the fly). Slower to start: every
// command is loaded to list them, as there is no manifest of src/. For development only.
'use strict'
const {readFileSync} = require('node:fs')
const {join} = require('node:path')
const {Config, Plugin, execute, settings} = require('@oclif/core')

const root = join(__dirname, '..')
const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
// The commands of src/, whatever package.json and oclif.manifest.json say about the built ones.
pjson.oclif.commands = './src/commands'
// And the hooks of src/, so that they share node_modules' @oclif/core (its ExitError class) with the commands.
for (const [event, path] of Object.entries(pjson.oclif.hooks ?? {})) pjson.oclif.hooks[event] = path.replace(/^\.\/dist\/bundle\//, './src/')
// And the help class of src/ (--help crashed without a build: it named dist/bundle's).
if (pjson.oclif.helpClass) pjson.oclif.helpClass = pjson.oclif.helpClass.replace(/^\.\/dist\/bundle\//, './src/')
// tsx compiles the .ts files; oclif need not map paths to sources itself.
settings.enableAutoTranspile = false

async function main() {
  // tsx registered from inside the file (its loader, what `node --import tsx` runs, for both module systems):
  // `node bin/dev.js` and Windows, which has no shebang, work as `./bin/dev.js` does.
  await import('tsx')
  const rootPlugin = new Plugin({ignoreManifest: true, isRoot: true, pjson, root})
  await rootPlugin.load()
  const config = await Config.load({plugins: new Map([[rootPlugin.name, rootPlugin]]), root})
  await config.loadPluginsAndCommands({force: true})
  await execute({development: true, loadOptions: config})
}

main()
