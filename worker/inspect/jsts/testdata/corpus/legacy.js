#!/usr/bin/env node
'use strict';

var fs = require('fs'), path = require('path');
const VERSION = '1.2.3';
let count = 0

// Regular expression or division: the token before decides.
const half = count / 2 / 1;
const pattern = /\/\*[^]*?\*\//g, slashes = /[/]{2}/;
const ratio = (count + 1) / (VERSION.length) / 2
const tagged = String.raw`C:\path\${not} ${count}`;
const nested = `outer ${`inner ${`deepest {`}`} }`;

function parse(text) {
  if (/^\s*$/.test(text)) return null
  return text.split(/\r?\n/).map(line => line.trim() / 1)
}

async function* lines(stream) {
  for await (const chunk of stream) yield chunk
}

const obj = {
  method() { return 1 },
  get value() { return 2 },
  ['computed' + 1]: function () {},
};

class Animal {
  static count = 0;
  #name;
  constructor(name) { this.#name = name; Animal.count++ }
  get name() { return this.#name }
  speak() { return `${this.#name} makes a sound.` }
  static create(name) { return new this(name) }
}

class Dog extends Animal {
  speak() {
    class Inner { bark() {} }
    return new Inner().bark() || super.speak()
  }
  async *fetchAll() {}
}

let a = 1
let b = a
++b
const c = a
(function iife() {})()

outer: for (let i = 0; i < 3; i++) {
  for (;;) continue outer
}

var handler = function named() {}, arrow = async x => x * 2;

exports.parse = parse;
module.exports = { parse, lines, Animal, Dog };
