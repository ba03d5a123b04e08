const path = require("path");

const LIMIT = 5;

class Store {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item); // needle
  }
}

function makeStore() {
  return new Store();
}

const arrow = (x) => x + LIMIT;

module.exports = { makeStore, arrow, path };
