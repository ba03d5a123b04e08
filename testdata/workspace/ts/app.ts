import { readFileSync } from "fs";

export const LIMIT = 10;

export interface Shape {
  area(): number;
}

export type Name = string;

export class Circle implements Shape {
  constructor(private r: number) {}

  area(): number {
    return Math.PI * this.r * this.r; // needle
  }
}

export function total(shapes: Shape[]): number {
  return shapes.reduce((s, x) => s + x.area(), 0);
}

const c = new Circle(2);
console.log(total([c]), readFileSync);
