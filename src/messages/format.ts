/** The path by which rules/ still reaches the formatting helpers; every other folder imports ../format.js. */
export * from '../format.js';
