import type { BuildOptions } from 'esbuild'

/**
 * esbuild settings for scripts that run inside a customer's LMS or a SCORM package: one classic
 * script (IIFE), ES2017 for LMS-era browsers, ASCII only because such content is often served
 * without a charset, minified, built in memory. Shared by the generated course player and the
 * dispatch wrapper so both ship under the same constraints.
 */
export const LMS_SCRIPT_BUILD = {
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  target: ['es2017'],
  charset: 'ascii',
  minify: true,
  legalComments: 'none',
  logLevel: 'silent',
} as const satisfies BuildOptions
