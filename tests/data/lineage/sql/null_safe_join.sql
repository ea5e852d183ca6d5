SELECT c.c_mktsegment, count(*) AS pairs
FROM customer c JOIN supplier s ON c.c_nationkey <=> s.s_nationkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment
