import { Injectable, Inject } from "@angular/core";
import type { Request, Response } from "express";
import * as path from "node:path";
import defaultExport, { named as alias } from './local.js';
import "./polyfills";

export const DEFAULT_TIMEOUT = 30_000;
export let retries = 3, backoff = (n: number): number => 2 ** n * 100;
const cache = new Map<string, Array<Promise<Response>>>();

export enum Level { Debug = 1, Info, Warn, Error }
export const enum Flags { None = 0, A = 1 << 0, B = 1 << 1 }

export interface Options<T = unknown> extends Base {
  timeout?: number;
  parse(body: string): T;
  readonly headers: Record<string, string>;
}

export type Handler<T> = (req: Request, res: Response) => Promise<T>;
type Pair<A, B> = [A, B]
type Mapped<T> = {
  [K in keyof T]?: T[K] extends Function ? never : T[K];
};

declare global {
  interface Window { service: Service }
}

declare module "express" {
  interface Request { user?: string }
}

export namespace Util {
  export function clamp(x: number, lo: number, hi: number) {
    return Math.min(Math.max(x, lo), hi);
  }
}

@Injectable({ providedIn: "root" })
export class Service<T extends object = {}> implements Disposable {
  private static instances = 0;
  #secret = "x";
  protected readonly log: (msg: string) => void = console.log;

  constructor(@Inject("opts") private readonly opts: Options<T>) {
    Service.instances++;
  }

  @memoize()
  async fetch(url: string): Promise<T>;
  async fetch(url: URL): Promise<T>;
  async fetch(url: string | URL): Promise<T> {
    const res = await globalThis.fetch(`${url}?t=${Date.now() / 1000}`);
    return this.opts.parse(await res.text());
  }

  get size(): number { return cache.size }
  set size(_: number) { throw new Error("read-only") }

  static create<U extends object>(opts: Options<U>): Service<U> {
    return new Service<U>(opts);
  }

  *[Symbol.iterator](): Iterator<string> {
    yield* cache.keys();
  }

  [Symbol.dispose]() {
    cache.clear();
  }

  private handle = async (req: Request): Promise<void> => {};
}

export abstract class Repository<E extends { id: string }> {
  abstract find(id: string): Promise<E | undefined>;
  abstract save(entity: E): Promise<void>
  protected key(id: string) { return `repo:${id}` }
}

export default function createService(): Service {
  return Service.create({ parse: JSON.parse, headers: {} });
}

export function overloaded(x: string): string
export function overloaded(x: number): number
export function overloaded(x: any) { return x }

export const handler: Handler<void> = async (req, res) => {
  res.send(req.path);
};

function memoize() {
  return function (target: any, key: string, desc: PropertyDescriptor) {
    return desc;
  };
}
