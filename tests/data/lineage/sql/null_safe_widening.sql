SELECT s.s_name, count(*) AS n_lines
FROM lineitem l JOIN supplier s ON l.l_suppkey <=> s.s_suppkey AND l.l_linenumber = 1
GROUP BY s.s_name ORDER BY s.s_name
