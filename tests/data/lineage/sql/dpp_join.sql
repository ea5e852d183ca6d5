SELECT d.d_moy, sum(s.sa_amount) AS amount
FROM sales s JOIN date_dim d ON s.sa_month = d.d_month
WHERE d.d_year = 1995
GROUP BY d.d_moy ORDER BY d.d_moy
