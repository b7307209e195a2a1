#!/usr/bin/env -S node --import tsx --disable-warning=ExperimentalWarning
// Runs the CLI from src/ without a build (tsx compiles on the fly). Slower to start; for development only.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
