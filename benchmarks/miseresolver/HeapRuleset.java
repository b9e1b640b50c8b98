/*
 * HeapRuleset.java -- written for sdg_automata (not part of CGSuite).
 *
 * The one thing MisereSolver needs from CGSuite's Scala HeapRuleset/TakeAndBreak: the
 * options of a heap of a take-and-break code.  This class computes them for octal and
 * hexadecimal codes "0.d1d2...dk" (digits 0-9, A-F): digit d_k's bits 1, 2, 4, 8 allow
 * removing k tokens and leaving 0, 1, 2, 3 non-empty heaps (Winning Ways ch. 4; CGSuite's
 * TBCode).  Each option is returned as its heaps' sizes in non-decreasing order, each
 * multiset once, as CGSuite's TBCode traversal yields them.  benchmarks/
 * fetch_miseresolver.sh puts this file beside MisereSolver's sources and edits
 * MisereSolver.heapOptions to call it.
 */
package org.cgsuite.core.misere.solver;

import java.util.ArrayList;
import java.util.List;

public final class HeapRuleset
{
    private final String code;
    private final int[] digits;  // digits[k] = d_k, digits[0] = 0

    public HeapRuleset(String code)
    {
        if (!code.startsWith("0.") || code.length() < 3)
        {
            throw new IllegalArgumentException("expected a code 0.d1d2...dk, not " + code);
        }
        this.code = code;
        this.digits = new int[code.length() - 1];
        for (int k = 1; k < digits.length; k++)
        {
            int d = Character.digit(code.charAt(k + 1), 16);
            if (d < 0)
            {
                throw new IllegalArgumentException("not a hexadecimal digit in " + code);
            }
            digits[k] = d;
        }
    }

    /** The options of a heap of n: for each move, the sizes of the heaps it leaves. */
    public List<int[]> heapOptions(int n)
    {
        List<int[]> result = new ArrayList<int[]>();
        for (int k = 1; k < digits.length && k <= n; k++)
        {
            int d = digits[k], s = n - k;
            if ((d & 1) != 0 && s == 0)
            {
                result.add(new int[0]);
            }
            if ((d & 2) != 0 && s >= 1)
            {
                result.add(new int[] {s});
            }
            if ((d & 4) != 0)
            {
                for (int a = 1; 2 * a <= s; a++)
                {
                    result.add(new int[] {a, s - a});
                }
            }
            if ((d & 8) != 0)
            {
                for (int a = 1; 3 * a <= s; a++)
                {
                    for (int b = a; 2 * b <= s - a; b++)
                    {
                        result.add(new int[] {a, b, s - a - b});
                    }
                }
            }
        }
        return result;
    }

    @Override
    public String toString()
    {
        return code;
    }
}
