/** The bad-input sweep, part 2 of 2 (tests/reliability/sweep-suite.ts says what it checks). */
import { sweepPart } from './sweep-suite'

sweepPart(1, 2)
