import type { WatchCondition } from '../watches/watch-condition.js';
import { formatNumber, humanise } from './report-blocks.js';

const count = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/**
 * A watch condition as people read it, money with the report's currency: `Gross revenue ≥ 4,102
 * EUR`, `90% of tickets sold`, `EARLYBIRD: 10% or fewer left`. Raw text, not markup.
 */
export function conditionLabel(condition: WatchCondition, currency: string | undefined): string {
  switch (condition.kind) {
    case 'figure':
      return `${humanise(condition.field)} ${condition.op === '>=' ? '≥' : '≤'} ${formatNumber(condition.field, condition.value, currency)}`;
    case 'sold-share':
      return `${count.format(condition.percent)}% of tickets sold`;
    case 'left':
      return `${condition.code}: ${count.format(condition.max)}${condition.unit === 'percent' ? '%' : ''} or fewer left`;
    case 'sold-since':
      return `+${count.format(condition.count)} tickets sold since the last check`;
    case 'stall':
      return `No sale for ${count.format(condition.hours)} h`;
    case 'sold-out':
      return 'Sold out';
    case 'sells-out':
      return 'Forecast to sell out before the start';
    case 'pace-below':
      return `Sales pace below ${count.format(condition.perDay)} a day`;
    case 'pace-halves':
      return 'Sales pace halves';
    case 'behind-similar':
      return 'Sold below similar events at this point';
    case 'flatline':
      return 'No sale for longer than similar events make likely';
  }
}
