SELECT s.s_name, count(*) AS n_lines
FROM lineitem l JOIN supplier s ON CAST(l.l_suppkey AS INT) = s.s_suppkey
GROUP BY s.s_name ORDER BY s.s_name
