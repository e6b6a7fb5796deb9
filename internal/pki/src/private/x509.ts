// @peculiar/x509 2.x needs the Reflect metadata polyfill loaded before it
// (tsyringe inside it checks at import time). ESM evaluates imports in order,
// so every module of this package imports the library through this file.
import 'reflect-metadata';

export * as x509 from '@peculiar/x509';
